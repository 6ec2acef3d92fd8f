package io.zlink;

/**
 * The Actor side refused a session relay: the operation ends Unavailable. {@code reason}:
 * UnknownBinding, StaleRoute or ObjectGeneration.
 */
public record RelayRefused(long operationId, SessionRef session, String actor, String reason) implements Inbound {}
