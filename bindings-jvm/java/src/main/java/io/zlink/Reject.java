package io.zlink;

/** Carry this refusal back to the operation's origin. */
public record Reject(Outbound outbound) implements Inbound {}
