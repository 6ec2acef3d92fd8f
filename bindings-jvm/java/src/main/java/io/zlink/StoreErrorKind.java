package io.zlink;

/** Why a store call failed. */
public enum StoreErrorKind {
    /** The call timed out. Retry later. */
    TIMEOUT("Timeout"),
    /** The store could not be reached. Retry later. */
    UNREACHABLE("Unreachable"),
    /** The store is configured wrongly. Fix the configuration. */
    CONFIG("Config"),
    /** The store answered something unusable. Report it. */
    PROTOCOL("Protocol");

    private final String wireName;

    StoreErrorKind(String wireName) {
        this.wireName = wireName;
    }

    /** The name every language uses (e.g. {@code "Timeout"}). */
    public String wireName() {
        return wireName;
    }

    static StoreErrorKind of(int code) {
        return Codes.of(values(), 1, code);
    }
}
