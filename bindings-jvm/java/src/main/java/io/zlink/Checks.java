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
}
