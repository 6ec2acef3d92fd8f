package io.zlink;

/** Not a valid frame: dropped. {@code kind} is the wire error's kind (docs/wire.md). */
public record Dropped(String kind, String error) implements Inbound {}
