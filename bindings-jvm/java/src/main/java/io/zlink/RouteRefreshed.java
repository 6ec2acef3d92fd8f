package io.zlink;

/** A relay notification was applied; {@code invalidated}: whether a cached route went. */
public record RouteRefreshed(boolean invalidated) implements Inbound {}
