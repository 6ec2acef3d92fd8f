package io.zlink;

import java.util.OptionalLong;

/**
 * The operation is on its way: carry {@code outbound}. A request has a {@code correlation}: its
 * one terminal result comes as a {@link Completion}.
 */
public record Submitted(long operationId, Outbound outbound, OptionalLong correlation) implements SendResult {}
