package io.zlink;

/** Bytes that are not a valid frame (kind: BadMagic, Truncated, UnsupportedVersion, ...). */
public class WireException extends ZlinkException {
    private static final long serialVersionUID = 1L;

    /** An exception with its message and kind. */
    public WireException(String message, String kind, String refusal) {
        super(message, kind, refusal);
    }
}
