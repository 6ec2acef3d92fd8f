//! The lifecycle writes (docs/runtime.md 14-17) and relocation (18-20).

use super::*;

entry_points! {
    /// One lifecycle write (1 create, 2 publishReady, 3 activate,
    /// 4 renewLease, 5 beginRelease): the owned object.
    fn Java_io_zlink_Native_write(env, rt: jlong, op: jint, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let owned = pin(&RUNTIMES, rt, RUNTIME)?.write(kind as u32, &id[..], write_of(op)?)?;
        encoded(env, &owned)
    }

    /// A lifecycle write (`op` as for `write`) on a runtime thread:
    /// completes `future` with the owned object's bytes, or fails it with
    /// the write's refusal. The kind and ID are checked here first, as the
    /// write checks them: bad input throws from this call.
    fn Java_io_zlink_Native_writeAsync(env, rt: jlong, op: jint, kind: jint, id: JByteArray<'local>, future: JFuture<'local>) -> () {
        let (id, write) = (bytes(env, &id)?, write_of(op)?);
        let runtime = pin(&RUNTIMES, rt, RUNTIME)?;
        let kind = checked_kind(&runtime, kind, &id)?;
        settle_later(env, &runtime, rt, &future, move |rt| {
            Ok(bytes_of(&rt.write(kind, &id[..], write)?))
        })
    }

    /// `completeRelease` on a runtime thread, checked here as `writeAsync`
    /// is: completes `future` with null.
    fn Java_io_zlink_Native_completeReleaseAsync(env, rt: jlong, kind: jint, id: JByteArray<'local>, future: JFuture<'local>) -> () {
        let id = bytes(env, &id)?;
        let runtime = pin(&RUNTIMES, rt, RUNTIME)?;
        let kind = checked_kind(&runtime, kind, &id)?;
        settle_later(env, &runtime, rt, &future, move |rt| {
            rt.complete_release(kind, &id[..])?;
            Ok(None)
        })
    }

    /// Completes a release: the ID resolves Missing.
    fn Java_io_zlink_Native_completeRelease(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> () {
        let id = bytes(env, &id)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.complete_release(kind as u32, &id[..])?)
    }

    /// What this node owns for the ID, or null.
    fn Java_io_zlink_Native_owned(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let owned = pin(&RUNTIMES, rt, RUNTIME)?.owned(kind as u32, &id[..])?;
        encoded_opt(env, owned)
    }

    /// How many objects this node owns.
    fn Java_io_zlink_Native_ownedCount(_env, rt: jlong) -> jlong {
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.core()?.owned_count() as jlong)
    }

    /// This node's tenure of an object it owns, or null.
    fn Java_io_zlink_Native_ownerRouteEnd(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let end = pin(&RUNTIMES, rt, RUNTIME)?.owner_route_end(kind as u32, &id[..])?;
        encoded_opt(env, end)
    }

    /// Source: starts moving an object to runtime `target_rid` of this
    /// mesh, with the operations saved (their frames) and the state.
    fn Java_io_zlink_Native_beginRelocation(
        env,
        rt: jlong,
        kind: jint,
        id: JByteArray<'local>,
        target_rid: jlong,
        target_generation: jlong,
        saved: JByteArrays<'local>,
        state: JByteArray<'local>,
    ) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let operations = saved_operations(env, &saved)?;
        let state = bytes(env, &state)?;
        let count = operations.len();
        let started = pin(&RUNTIMES, rt, RUNTIME)?.begin_relocation(
            kind as u32,
            &id[..],
            target_rid as u64,
            target_generation as u64,
            count,
            move || Ok(operations),
            &state,
        )?;
        encoded(env, &started)
    }

    /// Target: the object was rebuilt; relay-ready's frames.
    fn Java_io_zlink_Native_relocationRestored(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let send = pin(&RUNTIMES, rt, RUNTIME)?.relocation_restored(kind as u32, &id[..])?;
        encoded(env, &send[..])
    }

    /// Abandons a relocation before relay-ready: its Relocation decision.
    fn Java_io_zlink_Native_abortRelocation(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let d = pin(&RUNTIMES, rt, RUNTIME)?.abort_relocation(kind as u32, &id[..])?;
        encoded(env, &surface::Inbound::from(d))
    }
}
