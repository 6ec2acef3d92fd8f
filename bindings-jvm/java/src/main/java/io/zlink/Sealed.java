package io.zlink;

/** The relocation source learns whether a Session sealed (command 43). */
public record Sealed(SessionRef session, String actor, long relocation, boolean sealed) implements Inbound {}
