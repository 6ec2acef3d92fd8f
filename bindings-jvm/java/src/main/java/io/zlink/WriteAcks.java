package io.zlink;

/**
 * Which replicas must acknowledge each authority write of a {@link RedisStore} (Redis {@code WAIT})
 * before the store reports it done; set with {@link RedisStore.Options#writeAcks(WriteAcks)}.
 *
 * <p>Redis replicates asynchronously: a failover to a replica the write had not reached loses it,
 * and with it the one-owner promise. A write that fewer replicas acknowledge than asked within
 * {@link RedisStore.Options#writeAckTimeout(java.time.Duration) writeAckTimeout} fails with the
 * store's {@code Timeout} kind (a {@link StoreFailure} of {@link StoreErrorKind#TIMEOUT}; from an
 * authority write call such as {@code activate}, a {@link LifecycleException} of kind {@code
 * Store}): its outcome is unknown, retry it (the same node's retry completes it).
 */
public sealed interface WriteAcks {
    /**
     * Every replica the deployment is known to have (the default): on a Cluster, every replica the
     * primary of the object's slot has; on one server or under Sentinel, the most replicas the
     * current primary was seen with. A primary without replicas waits for none.
     */
    static WriteAcks allReplicas() {
        return new AllReplicas();
    }

    /**
     * At least {@code n} replicas, n &gt;= 1 (a failover to a replica outside them can still lose a
     * write). A count below 1, or more than a primary of the deployment has, is a {@link
     * StoreException} of kind {@code Config} when the store connects.
     */
    static WriteAcks replicas(int n) {
        return new Replicas(n);
    }

    /**
     * None: the primary's answer is the acknowledgement (a failover can lose a write the store
     * reported done).
     */
    static WriteAcks primaryOnly() {
        return new PrimaryOnly();
    }

    /** {@link #allReplicas()}. */
    record AllReplicas() implements WriteAcks {}

    /** {@link #replicas(int)}. */
    record Replicas(int n) implements WriteAcks {}

    /** {@link #primaryOnly()}. */
    record PrimaryOnly() implements WriteAcks {}
}
