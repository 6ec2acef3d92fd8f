package io.zlink;

/** A session relay on its way: carry {@code outbound}. */
public record SessionSent(long operationId, long sequence, Outbound outbound) implements SessionSendResult {}
