package io.zlink;

/** What the store held when an ownership was found lost ({@link OwnershipLost}). */
public enum LostReason {
    /** No record: the write this node acted on was lost in a failover. */
    Missing,
    /** Another owner, owner generation or incarnation. */
    Replaced,
    /** This node's record, whose owner lease has ended on the store. */
    LeaseEnded;

    static LostReason named(String name) {
        for (LostReason r : values()) {
            if (r.name().equals(name)) {
                return r;
            }
        }
        throw new IllegalStateException("unknown lost reason " + name);
    }
}
