package io.zlink;

/**
 * A zlink failure that is not a programmer error: the store could not be asked, an authority
 * write was refused, bytes are not a frame, a session or relocation call was refused. The
 * subclasses name the family; {@link #kind()} the precise cause.
 */
public class ZlinkException extends RuntimeException implements ZlinkError {
    private static final long serialVersionUID = 1L;
    private final String kind;

    /** An exception with its message and kind; {@code refusal} is for {@link RelocationException}. */
    public ZlinkException(String message, String kind, String refusal) {
        super(message);
        this.kind = kind;
    }

    @Override
    public String kind() {
        return kind;
    }
}
