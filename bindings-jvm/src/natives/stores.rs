//! The config, clocks and stores.

use super::*;

entry_points! {
    /// The default config as its 13 numbers.
    fn Java_io_zlink_Native_configDefault(env) -> JLongArray<'local> {
        longs(env, &config::values(&zlink_bridge::core::RoutingConfig::default()))
    }

    /// Checks 13 numbers as a config; the config's numbers.
    fn Java_io_zlink_Native_configCheck(env, values: JLongArray<'local>) -> JLongArray<'local> {
        let c = config_of(env, &values)?;
        longs(env, &config::values(&c))
    }

    /// The config's field names, in order, comma-separated.
    fn Java_io_zlink_Native_configFields(env) -> JString<'local> {
        let names: Vec<&str> = config::FIELDS.iter().map(|(name, _)| *name).collect();
        Ok(env.new_string(names.join(","))?)
    }

    /// A clock: the system's (`manual` false) or a manual one.
    fn Java_io_zlink_Native_clockNew(_env, manual: jboolean) -> jlong {
        let clock = if manual { Clock::manual() } else { Clock::system() };
        Ok(register(&CLOCKS, clock, "Clock")?)
    }

    /// Moves a manual clock forward.
    fn Java_io_zlink_Native_clockAdvance(_env, clock: jlong, ms: jlong) -> () {
        let ms = zlink_bridge::args::millis("ms", ms)?;
        let ms = u64::try_from(ms.as_millis()).unwrap_or(u64::MAX);
        Ok(pin(&CLOCKS, clock, "Clock")?.advance(ms)?)
    }

    /// The clock's now, in nanoseconds.
    fn Java_io_zlink_Native_clockNow(_env, clock: jlong) -> jlong {
        Ok(pin(&CLOCKS, clock, "Clock")?.now_ns() as jlong)
    }

    /// Frees a clock (runtimes and stores using it keep it alive).
    fn Java_io_zlink_Native_clockFree(_env, clock: jlong) -> () {
        free(&CLOCKS, clock);
        Ok(())
    }

    /// The embedded store; `clock` 0 for the system's, `retention_ms` -1
    /// for the default.
    fn Java_io_zlink_Native_storeMemory(_env, clock: jlong, retention_ms: jlong) -> jlong {
        let retention = given_checked(retention_ms, "tombstone retention")?;
        let retention = retention.map(std::time::Duration::from_millis);
        let store = if clock == 0 {
            Store::memory(None, retention)
        } else {
            Store::memory(Some(&*pin(&CLOCKS, clock, "Clock")?), retention)
        };
        Ok(register(&STORES, store, "MemoryStore")?)
    }

    /// Connects to Redis; -1 / null for the defaults (a negative thread
    /// connection count is refused in Java; the bridge checks the write
    /// acknowledgement mode and count, the count read only for its mode).
    /// Blocks.
    fn Java_io_zlink_Native_storeRedis(
        env,
        url: JString<'local>,
        prefix: JString<'local>,
        connect_ms: jlong,
        response_ms: jlong,
        epoch_ms: jlong,
        retention_ms: jlong,
        thread_connections: jint,
        write_acks_mode: jint,
        write_acks_replicas: jint,
        write_ack_timeout_ms: jlong,
    ) -> jlong {
        let url = text(env, &url)?;
        let prefix = if prefix.is_null() { None } else { Some(text(env, &prefix)?) };
        let fields = RedisFields {
            prefix: prefix.as_deref(),
            connect_timeout: given_checked(connect_ms, "connect timeout")?,
            response_timeout: given_checked(response_ms, "response timeout")?,
            epoch_check_interval: given_checked(epoch_ms, "epoch check interval")?,
            tombstone_retention: given_checked(retention_ms, "tombstone retention")?,
            thread_connections: usize::try_from(thread_connections).ok(),
            write_acks: match write_acks_mode {
                -1 => None,
                mode => Some(setup::write_acks(
                    u32::try_from(mode).unwrap_or(0),
                    i64::from(write_acks_replicas),
                )?),
            },
            write_ack_timeout: given_checked(write_ack_timeout_ms, "write ack timeout")?,
        };
        let store = Store::redis(&url, fields.options())?;
        Ok(register(&STORES, store, "RedisStore")?)
    }

    /// Frees a store (runtimes using it keep it alive).
    fn Java_io_zlink_Native_storeFree(_env, store: jlong) -> () {
        free(&STORES, store);
        Ok(())
    }
}
