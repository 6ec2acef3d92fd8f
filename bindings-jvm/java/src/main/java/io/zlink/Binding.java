package io.zlink;

/** A binding's identity, issued by the Actor owner. */
public record Binding(long generation, long token) {}
