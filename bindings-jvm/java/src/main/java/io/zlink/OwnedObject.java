package io.zlink;

/** An object this node owns, as its last authority write left it. */
public record OwnedObject(AuthorityState state, long objectGeneration,
        long authorityOwnerGeneration, long leaseGeneration, long storeVersion,
        long admissionDeadlineMs) {}
