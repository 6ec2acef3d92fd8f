package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Handles never leak: closed or collected, every native object is freed. */
class LeakTest {
    @Test
    void aMillionCreateCloseCyclesEndWithNoLiveHandle() {
        long before = Native.liveHandles();
        for (int i = 0; i < 1_000_000; i++) {
            new ManualClock().close();
        }
        for (int i = 0; i < 100_000; i++) {
            try (var clock = new ManualClock()) {
                new MemoryStore(clock).close();
            }
        }
        for (int i = 0; i < 200; i++) {
            try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).build()) {
                rt.activate(ObjectKind.ACTOR, "a" + i);
            }
        }
        assertEquals(before, Native.liveHandles());
    }

    @Test
    void forgottenObjectsAreFreedByTheCleaner() throws InterruptedException {
        long before = Native.liveHandles();
        for (int i = 0; i < 10_000; i++) {
            new ManualClock().advance(1); // never closed
        }
        ZlinkRuntime.builder(new NodeIdentity("main", 1)).build().ownedCount(); // never closed
        for (int i = 0; i < 100 && Native.liveHandles() > before; i++) {
            System.gc();
            Thread.sleep(50);
        }
        assertEquals(before, Native.liveHandles());
    }
}
