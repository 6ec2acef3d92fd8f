package io.zlink;

import java.lang.ref.Reference;

/**
 * A clock that moves only when told to (tests): share one between the runtimes and the
 * MemoryStore of a test, and drive time with {@link #advance(long)}.
 */
public final class ManualClock implements Clock {
    final Handle handle;

    /** A manual clock at 0. */
    public ManualClock() {
        this.handle = new Handle(this, Native.clockNew(true), Native::clockFree);
    }

    /** Moves time forward by {@code ms} milliseconds (not negative). */
    public void advance(long ms) {
        try {
            Native.clockAdvance(handle.value, ms);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    @Override
    public long nowMillis() {
        try {
            return Native.clockNow(handle.value) / 1_000_000;
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    @Override
    public void close() {
        handle.close();
    }
}
