package io.zlink;

/** An argument zlink refuses: an empty or too long ID, an unknown kind, a payload over the message bound, a zero or negative deadline. Fix the input. */
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
