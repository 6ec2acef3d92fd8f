//! The runtime (docs/runtime.md 1-3) and resolution (4-6).

use super::*;

entry_points! {
    /// Starts a runtime. `config` may be null (defaults), `store` and
    /// `clock` 0 (a private MemoryStore, the system clock), `workers` 0.
    fn Java_io_zlink_Native_runtimeNew(
        env,
        mesh: JString<'local>,
        rid: jlong,
        generation: jlong,
        lease: jlong,
        config: JLongArray<'local>,
        store: jlong,
        clock: jlong,
        workers: jint,
    ) -> jlong {
        let mesh = text(env, &mesh)?;
        let identity = setup::identity(mesh.as_str(), rid as u64, generation as u64, lease as u64)?;
        let config = if config.is_null() { None } else { Some(config_of(env, &config)?) };
        let store = match store {
            0 => None,
            s => Some(pin(&STORES, s, "LocationStore")?.get()?),
        };
        let clock = match clock {
            0 => None,
            c => Some((*pin(&CLOCKS, c, "Clock")?).clone()),
        };
        let worker_threads = usize::try_from(workers).ok().filter(|n| *n > 0);
        let options = Options { config, store, clock, worker_threads };
        let rt = zlink_bridge::Runtime::new(identity, options)?;
        Ok(register(&RUNTIMES, rt, RUNTIME)?)
    }

    /// Refuses (WrongThread) inside one of the runtime's own completions:
    /// `close` asks before it gives up its handle.
    fn Java_io_zlink_Native_runtimeMayClose(_env, rt: jlong) -> () {
        if let Ok(live) = crate::handles::RUNTIMES.get(rt as usize) {
            live.may_close("ZlinkRuntime.close")?;
        }
        Ok(())
    }

    /// Closes a runtime: waits for calls in flight and pending completions.
    fn Java_io_zlink_Native_runtimeFree(_env, rt: jlong) -> () {
        // Unregistered first (waiting for calls in flight), so a job still
        // queued finds the runtime closed; then its jobs and completions end.
        if let Some(rt) = free(&RUNTIMES, rt) {
            rt.stop();
        }
        Ok(())
    }

    /// The runtime's identity.
    fn Java_io_zlink_Native_identity(env, rt: jlong) -> JByteArray<'local> {
        let me = pin(&RUNTIMES, rt, RUNTIME)?.identity()?;
        encoded(env, &me)
    }

    /// The config in force.
    fn Java_io_zlink_Native_config(env, rt: jlong) -> JLongArray<'local> {
        let c = pin(&RUNTIMES, rt, RUNTIME)?.config()?;
        longs(env, &config::values(&c))
    }

    /// Replaces the config.
    fn Java_io_zlink_Native_updateConfig(env, rt: jlong, values: JLongArray<'local>) -> () {
        let c = config_of(env, &values)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.update_config(c)?)
    }

    /// Resolves an ID (blocks on the store on a miss).
    fn Java_io_zlink_Native_resolve(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let resolved = pin(&RUNTIMES, rt, RUNTIME)?.resolve(kind as u32, &id[..])?;
        encoded(env, &resolved)
    }

    /// Resolves many IDs of one kind in one call (a miss reads the store,
    /// blocking): the results' bytes, a list in order. `ids` holds the IDs'
    /// UTF-8 one after another; `ends[i]` is where ID `i` ends.
    fn Java_io_zlink_Native_resolveMany(
        env,
        rt: jlong,
        kind: jint,
        ids: JByteArray<'local>,
        ends: JLongArray<'local>,
    ) -> JByteArray<'local> {
        let all = bytes(env, &ids)?;
        let mut at = vec![0 as jlong; ends.len(env)?];
        ends.get_region(env, 0, &mut at)?;
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let mut out = Vec::with_capacity(at.len());
        let mut start = 0;
        for end in at {
            let end = usize::try_from(end)
                .ok()
                .filter(|e| (start..=all.len()).contains(e))
                .ok_or_else(|| Error::input(ErrorKind::OutOfRange, "an ID's end is out of order"))?;
            out.push(rt.resolve(kind as u32, &all[start..end])?);
            start = end;
        }
        encoded(env, &out[..])
    }

    /// Resolves an ID without blocking: completes `future` with the
    /// result's bytes from a runtime thread.
    fn Java_io_zlink_Native_resolveAsync(
        env,
        rt: jlong,
        kind: jint,
        id: JByteArray<'local>,
        future: JFuture<'local>,
    ) -> () {
        let id = bytes(env, &id)?;
        let future = env.new_global_ref(&future)?;
        let vm = env.get_java_vm()?;
        let done = move |resolved: Resolved| complete(&vm, &future, &resolved);
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.resolve_async(kind as u32, &id[..], done)?)
    }

    /// Runs the Java `job` (a Runnable) on a runtime thread: the async form
    /// of every blocking call. `close` waits for it.
    fn Java_io_zlink_Native_spawn(env, rt: jlong, job: JRunnable<'local>) -> () {
        let job = env.new_global_ref(&job)?;
        let vm = env.get_java_vm()?;
        let run = move || {
            let ran = vm.attach_current_thread(|env| -> jni::errors::Result<()> {
                env.call_method(&job, jni_str!("run"), jni_sig!(() -> void), &[])?;
                Ok(())
            });
            if let Err(e) = ran {
                eprintln!("zlink: an asynchronous call failed outside its future: {e}");
            }
        };
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.spawn(run)?)
    }

    /// Cache only: the route's bytes, or null.
    fn Java_io_zlink_Native_lookupCached(env, rt: jlong, kind: jint, id: JByteArray<'local>) -> JByteArray<'local> {
        let id = bytes(env, &id)?;
        let hit = pin(&RUNTIMES, rt, RUNTIME)?.lookup_cached(kind as u32, &id[..])?;
        encoded_opt(env, hit)
    }
}
