package io.zlink;

/** A clock runtimes and stores read: the system's or a manual one. */
public sealed interface Clock extends AutoCloseable permits SystemClock, ManualClock {
    /** Now, in milliseconds since the clock's origin. */
    long nowMillis();

    /** Frees the clock (runtimes and stores using it keep it alive). */
    @Override
    void close();
}
