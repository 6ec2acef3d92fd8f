package io.zlink;

/** The Location Store could not be opened or asked (kind: Timeout, Unreachable, Config, Protocol). */
public class StoreException extends ZlinkException {
    private static final long serialVersionUID = 1L;

    /** An exception with its message and kind. */
    public StoreException(String message, String kind, String refusal) {
        super(message, kind, refusal);
    }
}
