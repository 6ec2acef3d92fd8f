package io.zlink;

/** What the generated enums of the closed sets share (see {@code schema/}). */
final class Codes {
    private Codes() {}

    /** A number or name the library wrote that no value of {@code set} has. */
    static ZlinkException unknown(String set, String value) {
        return new ZlinkException("unknown " + set + " " + value, "Protocol", null);
    }
}
