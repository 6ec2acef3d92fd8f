package io.zlink;

/**
 * The runtime's checks that the library cannot run before the work starts, because the bridge
 * has no call that runs them without doing the work; the {@code ...Async} forms of {@link
 * ZlinkRuntime} run these in Java so that they throw at the call, not in the future. Everything
 * else those forms and {@link ObjectKey#of} refuse is checked by the library itself, by the
 * bridge's and the core's own rules. Each refusal here is the runtime's: the same exception, kind
 * and message (the core's {@code InputError} texts, core/src/error.rs; the bridge's frame bound,
 * bridge/src/runtime.rs); the tests compare them with the runtime's own. The runtime still checks
 * everything itself.
 *
 * <p>What the bridge lacks, and what would let these go:
 *
 * <ul>
 *   <li>{@link #send}: the core's checks of a send or request before it resolves. {@code
 *       core::Runtime::send} and {@code request} check the payload bound and a zero timeout in
 *       line, and {@code core::send::check_send} (instance intent on an Actor, a zero deadline)
 *       is crate-private; bridge/src/runtime.rs has no {@code check_send} / {@code
 *       check_request} to run them before the send.
 *   <li>{@link #frame}: the frame bound. {@code frame_bound} is private to bridge/src/runtime.rs
 *       and runs only inside {@code on_frame} and {@code on_peer_frame}.
 * </ul>
 */
final class Checks {
    private Checks() {}

    /** The longest frame, bytes: the largest payload (1 GiB) plus 1 MiB of headers (the bridge's). */
    static final long MAX_FRAME_BYTES = (1L << 30) + (1L << 20);

    /**
     * The core's checks of a send or request that run before it resolves, in its order: the
     * payload over the runtime's message bound ({@code bound}), a zero timeout (requests),
     * instance intent on an Actor, a zero deadline. The refusal, or null. The bridge's checks
     * (durations, the origin, the ID's global cap) come before these and the ID's runtime cap
     * after them: {@link ZlinkRuntime} keeps that order.
     */
    static ZlinkInputException send(ObjectKind kind, byte[] payload, SendOptions options, boolean request,
            long bound) {
        if (payload.length > bound) {
            return new ZlinkInputException("payload is " + payload.length + " bytes, over the " + bound
                    + "-byte message bound", "PayloadTooLarge", null);
        }
        if (request && options.timeoutMs() == 0) {
            return zeroDeadline();
        }
        if (options.instanceIntent() && kind == ObjectKind.ACTOR) {
            return new ZlinkInputException("instance intent is only valid on a Spot direct call, not on an Actor",
                    "InstanceIntentOnActor", null);
        }
        if (options.deadlineMs() == 0) {
            return zeroDeadline();
        }
        return null;
    }

    private static ZlinkInputException zeroDeadline() {
        return new ZlinkInputException("operation deadline must be positive", "ZeroDeadline", null);
    }

    /** A frame longer than any frame can be: {@code FrameTooLong}. */
    static void frame(byte[] frame) {
        if (frame.length > MAX_FRAME_BYTES) {
            throw new ZlinkInputException("frame is " + frame.length + " bytes, over the " + MAX_FRAME_BYTES
                    + "-byte bound", "FrameTooLong", null);
        }
    }
}
