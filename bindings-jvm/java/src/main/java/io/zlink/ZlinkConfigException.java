package io.zlink;

/** A RoutingConfig breaks a rule (the message names it, e.g. the route cache must expire at least 5 s before Message Follow). Nothing was changed. */
public class ZlinkConfigException extends IllegalArgumentException implements ZlinkError {
    private static final long serialVersionUID = 1L;
    private final String kind;

    /** An exception with its message and kind. */
    public ZlinkConfigException(String message, String kind, String refusal) {
        super(message);
        this.kind = kind;
    }

    @Override
    public String kind() {
        return kind;
    }
}
