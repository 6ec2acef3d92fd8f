package io.zlink;

/**
 * The resolver's four closed results (spec §2.2): {@link ReadyRoute}, {@link Missing}, {@link
 * Unavailable}, {@link StoreFailure}.
 */
public sealed interface Resolution permits ReadyRoute, Missing, Unavailable, StoreFailure {}
