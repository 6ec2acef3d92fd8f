package io.zlink;

/** A session frame that does not match current state was ignored. */
public record Ignored(String reason) implements Inbound {}
