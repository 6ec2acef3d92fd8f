package io.zlink;

/** The Location Store runtimes share: embedded ({@link MemoryStore}) or {@link RedisStore}. */
public sealed interface LocationStore extends AutoCloseable permits MemoryStore, RedisStore {
    /** Frees the store (runtimes using it keep it alive). */
    @Override
    void close();
}
