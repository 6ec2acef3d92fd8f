package io.zlink;

/** An authority record's lifecycle state. */
public enum AuthorityState {
    /** Created, not yet Ready. */
    CREATING("creating"),
    /** Ready: takes messages. */
    READY("ready"),
    /** Being released. */
    RELEASING("releasing");

    private final String wireName;

    AuthorityState(String wireName) {
        this.wireName = wireName;
    }

    /** The name every language uses (e.g. {@code "ready"}). */
    public String wireName() {
        return wireName;
    }

    static AuthorityState of(int code) {
        return Codes.of(values(), 1, code);
    }
}
