package io.zlink;

/** A reply to a one-way message, or a reply over the message bound. */
public class ReplyRouteException extends ZlinkException {
    private static final long serialVersionUID = 1L;

    /** An exception with its message and kind. */
    public ReplyRouteException(String message, String kind, String refusal) {
        super(message, kind, refusal);
    }
}
