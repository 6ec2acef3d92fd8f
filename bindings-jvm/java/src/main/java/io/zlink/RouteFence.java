package io.zlink;

/** The fence values an owner checks on admission. */
public record RouteFence(long objectGeneration, long authorityOwnerGeneration,
        long ownerLeaseGeneration, long nodeGeneration, long storeVersion) {}
