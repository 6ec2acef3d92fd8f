/**
 * zlink: the routing core of the zlink virtual-actor framework, for the JVM.
 *
 * <p>One {@link io.zlink.ZlinkRuntime} per MeshNode resolves Spot and Actor global IDs to
 * their current owner through a route cache backed by a shared Location Store ({@link
 * io.zlink.MemoryStore} or {@link io.zlink.RedisStore}), and decides what to do with every
 * frame that arrives; the host moves the bytes. Results are sealed interfaces of records, so
 * a switch or {@code instanceof} pattern reads like the other languages' {@code match}:
 *
 * <pre>{@code
 * if (rt.resolve(ObjectKind.ACTOR, "user-42") instanceof ReadyRoute route) { ... }
 * }</pre>
 *
 * <p>Errors: bad input and invalid configs are {@link java.lang.IllegalArgumentException}s
 * ({@link io.zlink.ZlinkInputException}, {@link io.zlink.ZlinkConfigException}), a closed
 * object an {@link java.lang.IllegalStateException} ({@link io.zlink.ZlinkClosedException}),
 * everything else a {@link io.zlink.ZlinkException}; each names its cause with {@code kind()}.
 * Bad input throws at the call, from the {@code ...Async} forms too: their futures carry only
 * results and the runtime's own outcomes.
 * Routing outcomes ({@code Missing}, {@code Unavailable}, ...) are values, never exceptions.
 */
package io.zlink;
