package io.zlink;

import java.lang.ref.Reference;

/** The operating system's monotonic clock. */
public final class SystemClock implements Clock {
    final Handle handle;

    /** A new handle on the system clock. */
    public SystemClock() {
        this.handle = new Handle(this, Native.clockNew(false), Native::clockFree);
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
