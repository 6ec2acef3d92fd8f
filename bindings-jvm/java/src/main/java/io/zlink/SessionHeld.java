package io.zlink;

/** The Actor is relocating (sealed): the relay is held and leaves, in order, with its command 44. */
public record SessionHeld(long operationId, long sequence) implements SessionSendResult {}
