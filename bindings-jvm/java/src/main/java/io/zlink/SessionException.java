package io.zlink;

/**
 * A session call on an unknown or disconnected Session, an Actor it has no binding to, or a
 * binding sealed for a relocation. A payload over the message bound is bad input: a {@link
 * ZlinkInputException} of kind {@code PayloadTooLarge}.
 */
public class SessionException extends ZlinkException {
    private static final long serialVersionUID = 1L;

    /** An exception with its message and kind. */
    public SessionException(String message, String kind, String refusal) {
        super(message, kind, refusal);
    }
}
