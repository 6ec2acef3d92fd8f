//! Logs, the wire codec, invalidation events and counters (docs/runtime.md 31-32).

use super::*;

entry_points! {
    /// Forwards the core's records at `level` (1 error ..= 5 trace) and
    /// more severe into the log queue; 0 forwards nothing.
    fn Java_io_zlink_Native_logLevel(_env, level: jint) -> () {
        let level = match level {
            0 => None,
            l => Some(Arg::get(l as u32)?),
        };
        Ok(zlink_bridge::logs::set_level(level)?)
    }

    /// Waits up to `timeout_ms` for records: each as its level's code,
    /// target and message, then the count dropped since the last call.
    fn Java_io_zlink_Native_logTake(env, timeout_ms: jlong) -> JByteArray<'local> {
        let timeout = std::time::Duration::from_millis(given(timeout_ms).unwrap_or(0));
        let (records, dropped) = zlink_bridge::logs::take(timeout);
        let mut w = encode::Writer::new();
        w.list(&records, |w, (level, target, message)| {
            w.u8(*level as u8).str(target).str(message);
        });
        w.u64(dropped);
        Ok(env.byte_array_from_slice(&w.finish())?)
    }

    /// Decodes one frame strictly: its command's name, its description
    /// (the golden vectors' JSON) and its bytes encoded again.
    fn Java_io_zlink_Native_wireDecode(
        env,
        data: JByteArray<'local>,
        max_object_id_bytes: jlong,
        max_payload_bytes: jlong,
        max_state_bytes: jlong,
    ) -> JByteArray<'local> {
        let data = bytes(env, &data)?;
        // -1: the default limit.
        let mut limits = zlink_bridge::core::wire::DecodeLimits::default();
        for (field, v, name) in [
            (&mut limits.max_object_id_bytes, max_object_id_bytes, "max object id bytes"),
            (&mut limits.max_payload_bytes, max_payload_bytes, "max payload bytes"),
            (&mut limits.max_state_bytes, max_state_bytes, "max state bytes"),
        ] {
            if let Some(v) = given_checked(v, name)? {
                *field = usize::try_from(v).unwrap_or(usize::MAX);
            }
        }
        let frame = zlink_bridge::core::wire::decode(&data, &limits).map_err(Error::from)?;
        let mut w = encode::Writer::new();
        w.str(zlink_bridge::core::wire::json::command_name(&frame))
            .str(&zlink_bridge::core::wire::json::describe(&frame).to_string())
            .bytes(&zlink_bridge::core::wire::encode(&frame));
        Ok(env.byte_array_from_slice(&w.finish())?)
    }

    /// The lifecycle `lease` of node `node` ended: cached routes dropped.
    fn Java_io_zlink_Native_onOwnerLeaseInvalidated(_env, rt: jlong, node: jlong, lease: jlong) -> jlong {
        let n = pin(&RUNTIMES, rt, RUNTIME)?.on_owner_lease_invalidated(node as u64, lease as u64)?;
        Ok(n as jlong)
    }

    /// A store recovery event: the cache is cleared.
    fn Java_io_zlink_Native_onStoreRecovery(_env, rt: jlong) -> jlong {
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.on_store_recovery()? as jlong)
    }

    /// Every counter: group, name, value.
    fn Java_io_zlink_Native_stats(env, rt: jlong) -> JByteArray<'local> {
        let counters = pin(&RUNTIMES, rt, RUNTIME)?.stats()?;
        encoded(env, &counters[..])
    }
}
