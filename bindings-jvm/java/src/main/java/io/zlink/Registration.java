package io.zlink;

/** One Session bound to an Actor on its owner. */
public record Registration(SessionRef session, Binding binding) {}
