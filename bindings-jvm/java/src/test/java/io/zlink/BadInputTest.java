package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BadInputTest {
    private static ZlinkRuntime runtime(long rid) {
        return ZlinkRuntime.builder(new NodeIdentity("main", rid)).build();
    }

    @Test
    void nullArgumentsAreNullPointerExceptionsNamingThem() {
        try (var rt = runtime(1)) {
            var e = assertThrows(NullPointerException.class, () -> rt.resolve(ObjectKind.ACTOR, null));
            assertEquals("id", e.getMessage());
            assertThrows(NullPointerException.class, () -> rt.resolve(null, "a"));
            assertThrows(NullPointerException.class, () -> new NodeIdentity(null, 1));
        }
    }

    @Test
    void badIdsAreIllegalArgumentExceptionsWithTheirKind() {
        try (var rt = runtime(1)) {
            var empty = assertThrows(ZlinkInputException.class, () -> rt.resolve(ObjectKind.ACTOR, ""));
            assertInstanceOf(IllegalArgumentException.class, empty);
            assertEquals("EmptyObjectId", empty.kind());
            var tooLong = assertThrows(ZlinkInputException.class,
                    () -> rt.resolve(ObjectKind.SPOT, "x".repeat(1025)));
            assertEquals("ObjectIdTooLong", tooLong.kind());
            assertTrue(tooLong.getMessage().contains("1025"), tooLong.getMessage());
            var async = rt.resolveAsync(ObjectKind.ACTOR, "");
            var failed = assertThrows(ExecutionException.class, () -> async.get(5, TimeUnit.SECONDS));
            assertInstanceOf(ZlinkInputException.class, failed.getCause());
        }
    }

    @Test
    void aBadIdentityIsRefusedWhenTheRuntimeStarts() {
        var empty = assertThrows(ZlinkInputException.class, () -> ZlinkRuntime.builder(new NodeIdentity("", 1)).build());
        assertEquals("EmptyMeshName", empty.kind());
        var tooLong = assertThrows(ZlinkInputException.class,
                () -> ZlinkRuntime.builder(new NodeIdentity("m".repeat(24), 1)).build());
        assertEquals("MeshNameTooLong", tooLong.kind());
        assertThrows(ZlinkInputException.class, () -> ZlinkRuntime.builder(new NodeIdentity("main", 1)).workerThreads(0));
    }

    @Test
    void aManualClockDoesNotGoBack() {
        try (var clock = new ManualClock()) {
            var e = assertThrows(ZlinkInputException.class, () -> clock.advance(-1));
            assertEquals("Negative", e.kind());
            clock.advance(5);
            assertEquals(5, clock.nowMillis());
        }
    }

    @Test
    void everyCallAfterCloseIsAnIllegalStateException() {
        var clock = new ManualClock();
        var store = new MemoryStore(clock);
        var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).clock(clock).build();
        rt.activate(ObjectKind.ACTOR, "a");
        rt.close();
        rt.close(); // twice is allowed
        var e = assertThrows(ZlinkClosedException.class, () -> rt.resolve(ObjectKind.ACTOR, "a"));
        assertInstanceOf(IllegalStateException.class, e);
        assertEquals("Closed", e.kind());
        assertTrue(e.getMessage().contains("ZlinkRuntime"), e.getMessage());
        assertThrows(ZlinkClosedException.class, () -> rt.lookupCached(ObjectKind.ACTOR, "a"));
        assertThrows(ZlinkClosedException.class, rt::stats);
        assertEquals("ZlinkRuntime(closed)", rt.toString());
        clock.close();
        assertThrows(ZlinkClosedException.class, () -> clock.advance(1));
        // The store keeps the clock alive: a runtime made on it still works.
        try (var again = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
            assertInstanceOf(ReadyRoute.class, again.resolve(ObjectKind.ACTOR, "a"));
        }
        store.close();
        assertThrows(ZlinkClosedException.class,
                () -> ZlinkRuntime.builder(new NodeIdentity("main", 3)).store(store).build());
    }

    @Test
    void closeRacingCallsOnOtherThreadsIsSafe() throws Exception {
        var store = new MemoryStore();
        try (var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build()) {
            for (int i = 0; i < 32; i++) {
                owner.activate(ObjectKind.SPOT, "s" + i);
            }
            for (int round = 0; round < 20; round++) {
                var rt = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build();
                var start = new CountDownLatch(1);
                var calls = new AtomicLong();
                List<CompletableFuture<Void>> workers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int seed = t;
                    workers.add(CompletableFuture.runAsync(() -> {
                        try {
                            start.await();
                            for (int n = 0; ; n++) {
                                rt.resolve(ObjectKind.SPOT, "s" + ((seed * 7 + n) % 64));
                                rt.resolveAsync(ObjectKind.SPOT, "s" + (n % 64));
                                calls.incrementAndGet();
                            }
                        } catch (ZlinkClosedException closed) {
                            // the only way out
                        } catch (InterruptedException e) {
                            throw new RuntimeException(e);
                        }
                    }));
                }
                start.countDown();
                while (calls.get() < 50) {
                    Thread.onSpinWait();
                }
                rt.close();
                for (var w : workers) {
                    w.get(10, TimeUnit.SECONDS);
                }
            }
        }
        store.close();
    }
}
