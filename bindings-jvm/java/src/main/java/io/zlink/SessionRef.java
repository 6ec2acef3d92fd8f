package io.zlink;

/** A Session as the wire names it: its owner runtime, id and generation. */
public record SessionRef(NodeRef owner, long id, long generation) {}
