package io.zlink;

/**
 * A bind was refused; any previous route is kept. {@code reason}: NotOwner, ObjectGeneration,
 * NodeGeneration, OwnerGeneration, OwnerLease or Timeout.
 */
public record BindRefused(SessionRef session, String actor, String reason) implements Inbound {}
