package io.zlink;

import java.lang.ref.Reference;
import java.time.Duration;

/** The embedded in-memory Location Store: share one between the runtimes of one process. */
public final class MemoryStore implements LocationStore {
    final Handle handle;

    /** A store on the system clock, with the default tombstone retention. */
    public MemoryStore() {
        this(null, null);
    }

    /** A store whose leases run on {@code clock} (null: the system's). */
    public MemoryStore(Clock clock) {
        this(clock, null);
    }

    /**
     * A store whose leases run on {@code clock} (null: the system's), keeping a released
     * object's tombstone for {@code tombstoneRetention} (null: the default, one hour).
     */
    public MemoryStore(Clock clock, Duration tombstoneRetention) {
        long retention = tombstoneRetention == null ? -1 : Utf8.millis(tombstoneRetention, "tombstoneRetention");
        try {
            long c = clock == null ? 0 : Handle.of(clock);
            this.handle = new Handle(this, Native.storeMemory(c, retention), Native::storeFree);
        } finally {
            Reference.reachabilityFence(clock);
        }
    }

    @Override
    public void close() {
        handle.close();
    }
}
