package io.zlink;

/**
 * An argument zlink refuses: an empty or too long ID, an unknown kind, a payload over the message
 * bound, a zero or negative deadline. Fix the input: the same call cannot succeed. Every call
 * reports bad input with this exception, {@link #kind()} naming the rule, e.g. a payload over the
 * bound is {@code PayloadTooLarge} from {@code send}, {@code request}, {@code sessionSend} and
 * {@code push}, {@code TooLarge} from {@code reply} and {@code replyError} (the same kinds as in
 * every language). The {@code ...Async} forms throw it at the call too, never in their future.
 */
public class ZlinkInputException extends IllegalArgumentException implements ZlinkError {
    private static final long serialVersionUID = 1L;
    private final String kind;

    /** An exception with its message and kind. */
    public ZlinkInputException(String message, String kind, String refusal) {
        super(message);
        this.kind = kind;
    }

    @Override
    public String kind() {
        return kind;
    }
}
