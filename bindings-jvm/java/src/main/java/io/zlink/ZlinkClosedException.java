package io.zlink;

/** The object was closed: it refuses every later call. */
public class ZlinkClosedException extends IllegalStateException implements ZlinkError {
    private static final long serialVersionUID = 1L;
    private final String kind;

    /** An exception with its message and kind. */
    public ZlinkClosedException(String message, String kind, String refusal) {
        super(message);
        this.kind = kind;
    }

    @Override
    public String kind() {
        return kind;
    }
}
