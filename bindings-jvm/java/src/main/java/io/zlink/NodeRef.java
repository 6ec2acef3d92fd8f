package io.zlink;

/** A runtime on the wire: mesh, routing ID, node generation. */
public record NodeRef(String mesh, long rid, long generation) {}
