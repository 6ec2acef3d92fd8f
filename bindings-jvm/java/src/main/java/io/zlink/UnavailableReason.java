package io.zlink;

/** Why an object cannot take messages now (spec §2.2). */
public enum UnavailableReason {
    /** Still being created. */
    CREATING("Creating"),
    /** Being released. */
    RELEASING("Releasing"),
    /** The owner lease expired on the store's clock. */
    LEASE_EXPIRED("LeaseExpired"),
    /** The owner lease was invalidated. */
    OWNER_NOT_LIVE("OwnerNotLive"),
    /** The owner rejected the route as stale. */
    STALE_ROUTE("StaleRoute"),
    /** The owner's admission deadline passed. */
    ADMISSION_DEADLINE_PASSED("AdmissionDeadlinePassed"),
    /** A Message Follow chain reached its hop limit. */
    FOLLOW_HOP_LIMIT("FollowHopLimit"),
    /** The object's relocation failed while the operation was held for it. */
    RELOCATION_FAILED("RelocationFailed");

    private final String wireName;

    UnavailableReason(String wireName) {
        this.wireName = wireName;
    }

    /** The name every language uses (e.g. {@code "LeaseExpired"}). */
    public String wireName() {
        return wireName;
    }

    static UnavailableReason of(int code) {
        return Codes.of(values(), 1, code);
    }
}
