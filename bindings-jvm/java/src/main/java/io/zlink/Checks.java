package io.zlink;

/**
 * The runtime's own input rules, checked in Java where a call must refuse bad input before the
 * runtime sees it: {@link ObjectKey#of} (there is no runtime yet) and the {@code ...Async} forms
 * of {@link ZlinkRuntime} (which throw at the call, not in the future). Each throws what the
 * runtime throws for the same input: the same exception, kind and message (the core's {@code
 * InputError} texts, core/src/error.rs, and the bridge's, bridge/src/args.rs); the tests compare
 * them with the runtime's own. The runtime still checks everything itself.
 */
final class Checks {
    private Checks() {}

    /** The longest peer endpoint or security identity, bytes (the core's {@code MAX_PEER_FIELD_BYTES}). */
    static final long MAX_PEER_FIELD_BYTES = 1_024;
    /** The longest frame, bytes: the largest payload (1 GiB) plus 1 MiB of headers (the bridge's). */
    static final long MAX_FRAME_BYTES = (1L << 30) + (1L << 20);

    /** The largest object-ID cap any config may set (the core's {@code MAX_OBJECT_ID_BYTES}). */
    static final long MAX_OBJECT_ID_BYTES = 65_535;
    /** The default object-ID cap ({@code RoutingConfig.defaults().maxObjectIdBytes()}). */
    static final long DEFAULT_OBJECT_ID_BYTES = 1_024;

    /**
     * An object ID's UTF-8 bytes ({@code utf8}) against {@code cap}: {@code EmptyObjectId} or
     * {@code ObjectIdTooLong}, in the runtime's order (over the global cap before empty).
     */
    static byte[] id(byte[] utf8, long cap) {
        if (utf8.length > MAX_OBJECT_ID_BYTES) {
            throw idTooLong(utf8.length, MAX_OBJECT_ID_BYTES);
        }
        if (utf8.length == 0) {
            throw new ZlinkInputException("object id is empty; give the global Spot/Actor ID", "EmptyObjectId", null);
        }
        if (utf8.length > cap) {
            throw idTooLong(utf8.length, cap);
        }
        return utf8;
    }

    private static ZlinkInputException idTooLong(long len, long max) {
        return new ZlinkInputException("object id is " + len + " bytes, over the " + max + "-byte cap",
                "ObjectIdTooLong", null);
    }

    /** The bridge's first check of an object ID: over the global cap, before its bytes are read. */
    static byte[] idBound(byte[] utf8) {
        if (utf8.length > MAX_OBJECT_ID_BYTES) {
            throw idTooLong(utf8.length, MAX_OBJECT_ID_BYTES);
        }
        return utf8;
    }

    /** A payload over the runtime's message bound: {@code PayloadTooLarge}. */
    static void payload(byte[] payload, long bound) {
        if (payload.length > bound) {
            throw new ZlinkInputException("payload is " + payload.length + " bytes, over the " + bound
                    + "-byte message bound", "PayloadTooLarge", null);
        }
    }

    /** A duration in milliseconds, -1 for the default: another negative one is {@code Negative}. */
    static void millis(long ms, String field) {
        if (ms < -1) {
            throw new ZlinkInputException(field + " must be >= 0 ms, got " + ms, "Negative", null);
        }
    }

    /** A zero deadline or request timeout: {@code ZeroDeadline}. */
    static void positive(long ms) {
        if (ms == 0) {
            throw new ZlinkInputException("operation deadline must be positive", "ZeroDeadline", null);
        }
    }

    /** Instance intent on an Actor call: {@code InstanceIntentOnActor}. */
    static void intent(ObjectKind kind, SendOptions options) {
        if (options.instanceIntent() && kind == ObjectKind.ACTOR) {
            throw new ZlinkInputException("instance intent is only valid on a Spot direct call, not on an Actor",
                    "InstanceIntentOnActor", null);
        }
    }

    /** A peer endpoint or security identity ({@code field}) out of 1..=1024 bytes: {@code BadPeerField}. */
    static void peerField(String value, String field) {
        long len = value.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (len == 0 || len > MAX_PEER_FIELD_BYTES) {
            throw new ZlinkInputException("peer " + field + " is " + len + " bytes; it must be 1..="
                    + MAX_PEER_FIELD_BYTES, "BadPeerField", null);
        }
    }

    /** A frame longer than any frame can be: {@code FrameTooLong}. */
    static void frame(byte[] frame) {
        if (frame.length > MAX_FRAME_BYTES) {
            throw new ZlinkInputException("frame is " + frame.length + " bytes, over the " + MAX_FRAME_BYTES
                    + "-byte bound", "FrameTooLong", null);
        }
    }

    /** A timer instant before the clock's start: {@code Negative}. */
    static void now(long nowNs) {
        if (nowNs < 0) {
            throw new ZlinkInputException("now must be >= 0 ns, got " + nowNs, "Negative", null);
        }
    }
}
