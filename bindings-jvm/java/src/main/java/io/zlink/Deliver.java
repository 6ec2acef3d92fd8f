package io.zlink;

/** Put {@code operation} on the local queue of the current Ready object. */
public record Deliver(Operation operation, long objectGeneration) implements Inbound {}
