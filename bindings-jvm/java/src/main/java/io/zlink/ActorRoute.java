package io.zlink;

/**
 * An Actor route as a binding stores it: the owner and the fences that must still hold, with the
 * lease time left when the owner answered.
 */
public record ActorRoute(NodeRef owner, long objectGeneration, long authorityOwnerGeneration,
        long ownerLeaseGeneration, long leaseRemainingMs) {}
