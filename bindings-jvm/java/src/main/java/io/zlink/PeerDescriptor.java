package io.zlink;

/** What a node publishes about itself as an object peer (from the store). */
public record PeerDescriptor(String endpoint, long rid, long lifecycleGeneration, String securityIdentity) {}
