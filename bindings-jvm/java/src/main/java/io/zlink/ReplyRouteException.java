package io.zlink;

/**
 * A reply to a one-way message (kind {@code OneWay}). A reply over the message bound, or an error
 * message over 4,096 bytes, is bad input: a {@link ZlinkInputException} of kind {@code TooLarge}.
 */
public class ReplyRouteException extends ZlinkException {
    private static final long serialVersionUID = 1L;

    /** An exception with its message and kind. */
    public ReplyRouteException(String message, String kind, String refusal) {
        super(message, kind, refusal);
    }
}
