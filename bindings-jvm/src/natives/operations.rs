//! Operations, frames, replies and timers (docs/runtime.md 7-13).

use super::*;

entry_points! {
    /// Sends a one-way message; `deadline_ms` -1 for the default.
    fn Java_io_zlink_Native_send(
        env,
        rt: jlong,
        kind: jint,
        id: JByteArray<'local>,
        payload: JByteArray<'local>,
        instance_intent: jboolean,
        deadline_ms: jlong,
    ) -> JByteArray<'local> {
        let (id, payload) = (bytes(env, &id)?, bytes(env, &payload)?);
        let options = request_options(instance_intent, optional(deadline_ms), None)?;
        let sent = pin(&RUNTIMES, rt, RUNTIME)?.send(kind as u32, &id[..], &payload, options.send)?;
        encoded(env, &sent)
    }

    /// Sends a request; -1 for the defaults; `origin` null or a Spot's ID.
    fn Java_io_zlink_Native_request(
        env,
        rt: jlong,
        kind: jint,
        id: JByteArray<'local>,
        payload: JByteArray<'local>,
        instance_intent: jboolean,
        deadline_ms: jlong,
        timeout_ms: jlong,
        origin: JByteArray<'local>,
        origin_generation: jlong,
    ) -> JByteArray<'local> {
        let (id, payload) = (bytes(env, &id)?, bytes(env, &payload)?);
        let options =
            request_args(env, instance_intent, deadline_ms, timeout_ms, &origin, origin_generation)?;
        let sent = pin(&RUNTIMES, rt, RUNTIME)?.request(kind as u32, &id[..], &payload, options)?;
        encoded(env, &sent)
    }

    /// `send` on a runtime thread: completes `future` with the result's
    /// bytes. The arguments are read and checked here first, by `send`'s
    /// own checks in its order (the deadline, then `Runtime::check_send`:
    /// the kind, the ID, the payload bound, instance intent on an Actor, a
    /// zero deadline, the ID against this runtime's cap): bad input throws
    /// from this call.
    fn Java_io_zlink_Native_sendAsync(
        env,
        rt: jlong,
        kind: jint,
        id: JByteArray<'local>,
        payload: JByteArray<'local>,
        instance_intent: jboolean,
        deadline_ms: jlong,
        future: JFuture<'local>,
    ) -> () {
        let (id, payload) = (bytes(env, &id)?, bytes(env, &payload)?);
        let options = request_options(instance_intent, optional(deadline_ms), None)?;
        let runtime = pin(&RUNTIMES, rt, RUNTIME)?;
        runtime.check_send(kind as u32, &id[..], payload.len(), options.send)?;
        settle_later(env, &runtime, rt, &future, move |rt| {
            Ok(bytes_of(&rt.send(kind as u32, &id[..], &payload, options.send)?))
        })
    }

    /// `request` on a runtime thread, checked here as `sendAsync` is (the
    /// timeout and the origin too, then `Runtime::check_request`).
    fn Java_io_zlink_Native_requestAsync(
        env,
        rt: jlong,
        kind: jint,
        id: JByteArray<'local>,
        payload: JByteArray<'local>,
        instance_intent: jboolean,
        deadline_ms: jlong,
        timeout_ms: jlong,
        origin: JByteArray<'local>,
        origin_generation: jlong,
        future: JFuture<'local>,
    ) -> () {
        let (id, payload) = (bytes(env, &id)?, bytes(env, &payload)?);
        let options =
            request_args(env, instance_intent, deadline_ms, timeout_ms, &origin, origin_generation)?;
        let runtime = pin(&RUNTIMES, rt, RUNTIME)?;
        runtime.check_request(kind as u32, &id[..], payload.len(), &options)?;
        settle_later(env, &runtime, rt, &future, move |rt| {
            Ok(bytes_of(&rt.request(kind as u32, &id[..], &payload, options)?))
        })
    }

    /// What to do with one frame from node `from`.
    fn Java_io_zlink_Native_onFrame(env, rt: jlong, from: jlong, frame: JByteArray<'local>) -> JByteArray<'local> {
        let frame = bytes(env, &frame)?;
        let d = pin(&RUNTIMES, rt, RUNTIME)?.on_frame(from as u64, &frame)?;
        encoded(env, &surface::Inbound::from(d))
    }

    /// `onFrame` on a runtime thread: an over-long frame throws here, as
    /// from `onFrame` (`runtime::check_frame`, before the frame is copied).
    fn Java_io_zlink_Native_onFrameAsync(env, rt: jlong, from: jlong, frame: JByteArray<'local>, future: JFuture<'local>) -> () {
        let runtime = pin(&RUNTIMES, rt, RUNTIME)?;
        check_frame(frame.len(env)?)?;
        let frame = bytes(env, &frame)?;
        settle_later(env, &runtime, rt, &future, move |rt| {
            Ok(bytes_of(&surface::Inbound::from(rt.on_frame(from as u64, &frame)?)))
        })
    }

    /// Answers a delivered request: `payload`, or (payload null) an error
    /// of kind `error_kind` (1 Handler, 2 Decode) with `code`, `message`.
    fn Java_io_zlink_Native_reply(
        env,
        rt: jlong,
        operation: JByteArray<'local>,
        payload: JByteArray<'local>,
        error_kind: jint,
        code: jint,
        message: JString<'local>,
    ) -> JByteArray<'local> {
        let operation = decode::operation(&bytes(env, &operation)?)?;
        let rt = pin(&RUNTIMES, rt, RUNTIME)?;
        let out = if payload.is_null() {
            let kind = Arg::get(error_kind as u32)?;
            let message = text(env, &message)?;
            rt.reply(Some(&operation), None, Some((kind, code as u32, message.as_str())))?
        } else {
            let payload = bytes(env, &payload)?;
            rt.reply(Some(&operation), Some(&payload), None::<(_, _, &str)>)?
        };
        encoded(env, &out)
    }

    /// Reports whether a Relay's notification was sent.
    fn Java_io_zlink_Native_noticeSettled(env, rt: jlong, token: JByteArray<'local>, sent: jboolean) -> () {
        let token = decode::notice_token(&bytes(env, &token)?)?;
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.notice_settled(Some(&token), sent)?)
    }

    /// Cancels a pending request: its Completed decision, or null.
    fn Java_io_zlink_Native_cancel(env, rt: jlong, correlation: jlong) -> JByteArray<'local> {
        let done = pin(&RUNTIMES, rt, RUNTIME)?.cancel(correlation as u64)?;
        encoded_opt(env, done.map(surface::Inbound::from))
    }

    /// Ends every pending request with Shutdown: their decisions.
    fn Java_io_zlink_Native_shutdownRequests(env, rt: jlong) -> JByteArray<'local> {
        let done = pin(&RUNTIMES, rt, RUNTIME)?.shutdown_requests()?;
        encoded(env, &surface::decisions(done)[..])
    }

    /// Every metric family, read now.
    fn Java_io_zlink_Native_metrics(env, rt: jlong) -> JByteArray<'local> {
        let all = pin(&RUNTIMES, rt, RUNTIME)?.metrics()?;
        encoded(env, &all[..])
    }

    /// Every metric in the Prometheus text exposition format.
    fn Java_io_zlink_Native_metricsText(env, rt: jlong) -> JString<'local> {
        let text = pin(&RUNTIMES, rt, RUNTIME)?.metrics_text()?;
        string_or_null(env, Some(text))
    }

    /// Requests waiting for their result.
    fn Java_io_zlink_Native_pendingRequests(_env, rt: jlong) -> jlong {
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.pending_requests()? as jlong)
    }

    /// The runtime clock now (ns).
    fn Java_io_zlink_Native_now(_env, rt: jlong) -> jlong {
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.now()? as jlong)
    }

    /// The earliest deadline (ns), or -1.
    fn Java_io_zlink_Native_nextDeadline(_env, rt: jlong) -> jlong {
        Ok(pin(&RUNTIMES, rt, RUNTIME)?.next_deadline()?.map_or(-1, |t| t as jlong))
    }

    /// Runs the deadlines due now (the runtime's clock).
    fn Java_io_zlink_Native_onTimeoutNow(env, rt: jlong) -> JByteArray<'local> {
        let ds = pin(&RUNTIMES, rt, RUNTIME)?.on_timeout(None)?;
        encoded(env, &surface::decisions(ds)[..])
    }

    /// Runs the deadlines due at `now_ns` (a negative one is refused).
    fn Java_io_zlink_Native_onTimeout(env, rt: jlong, now_ns: jlong) -> JByteArray<'local> {
        let now = nanos(now_ns)?;
        let ds = pin(&RUNTIMES, rt, RUNTIME)?.on_timeout(Some(now))?;
        encoded(env, &surface::decisions(ds)[..])
    }

    /// `onTimeout` on a runtime thread: a negative `now_ns` throws here.
    fn Java_io_zlink_Native_onTimeoutAsync(env, rt: jlong, now_ns: jlong, future: JFuture<'local>) -> () {
        let now = nanos(now_ns)?;
        let runtime = pin(&RUNTIMES, rt, RUNTIME)?;
        settle_later(env, &runtime, rt, &future, move |rt| {
            Ok(bytes_of(&surface::decisions(rt.on_timeout(Some(now))?)[..]))
        })
    }
}
