package io.zlink;

/** A result after the terminal one: dropped and counted. */
public record Late(long correlation) implements Inbound {}
