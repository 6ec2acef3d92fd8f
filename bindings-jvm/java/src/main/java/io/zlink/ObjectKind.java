package io.zlink;

/** Which kind of logical object a global ID names. */
public enum ObjectKind {
    /** A Spot. */
    SPOT("spot"),
    /** An Actor. */
    ACTOR("actor");

    private final String wireName;

    ObjectKind(String wireName) {
        this.wireName = wireName;
    }

    /** The stable number (1 spot, 2 actor). */
    public int code() {
        return ordinal() + 1;
    }

    /** The name every language uses: {@code "spot"} or {@code "actor"}. */
    public String wireName() {
        return wireName;
    }

    static ObjectKind of(int code) {
        return Codes.of(values(), 1, code);
    }
}
