package io.zlink;

/**
 * After a store recovery event (a Redis failover or restart), the store no longer names this node
 * as the owner of the object: stop running it here. Work held for it while its record was
 * re-read was refused to its senders (in {@link Reject} decisions of the same {@code onTimeout}).
 * {@code reason} says what the store holds instead.
 */
public record OwnershipLost(ObjectKind kind, String id, LostReason reason) implements Inbound {}
