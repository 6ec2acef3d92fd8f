package io.zlink;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * A native handle and its release, shared by every object that holds one: {@code close()} frees
 * it at once; if the object is forgotten, a {@link Cleaner} frees it when the object becomes
 * unreachable. The cleaning action holds only the handle value and the free function, never the
 * object.
 */
final class Handle implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    final long value;
    private final Cleaner.Cleanable cleanable;

    private record Free(long handle, LongConsumer free) implements Runnable {
        @Override
        public void run() {
            free.accept(handle);
        }
    }

    Handle(Object owner, long value, LongConsumer free) {
        this.value = value;
        this.cleanable = CLEANER.register(owner, new Free(value, free));
    }

    /** The handle value of a clock. */
    static long of(Clock clock) {
        if (clock instanceof ManualClock m) {
            return m.handle.value;
        }
        return ((SystemClock) clock).handle.value;
    }

    /** The handle value of a store. */
    static long of(LocationStore store) {
        if (store instanceof MemoryStore m) {
            return m.handle.value;
        }
        return ((RedisStore) store).handle.value;
    }

    /** Frees the handle (once; later calls do nothing). */
    @Override
    public void close() {
        cleanable.clean();
    }
}
