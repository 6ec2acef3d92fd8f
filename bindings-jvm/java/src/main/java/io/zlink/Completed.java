package io.zlink;

/** One of this runtime's requests reached its terminal result. */
public record Completed(Completion completion) implements Inbound {}
