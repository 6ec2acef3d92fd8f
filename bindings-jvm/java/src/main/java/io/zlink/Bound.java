package io.zlink;

/** A bind (or rebind) reached its terminal reply: {@code route} is stored. */
public record Bound(SessionRef session, String actor, BindingRoute route) implements Inbound {}
