package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

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
            // The async form refuses it at the call too (AsyncInputTest: every async form).
            var async = assertThrows(ZlinkInputException.class, () -> rt.resolveAsync(ObjectKind.ACTOR, ""));
            assertEquals("EmptyObjectId", async.kind());
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

    @Test
    void aPayloadOverTheBoundIsAZlinkInputExceptionFromEveryCall() {
        var config = RoutingConfig.builder().maxMessageBytes(8).build();
        try (var store = new MemoryStore();
                var a = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).config(config).build();
                var b = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).config(config).build()) {
            b.activate(ObjectKind.ACTOR, "x");
            // A request delivered at b, to answer; a Session of a's bound to b's actor.
            var asked = assertInstanceOf(Submitted.class, a.request(ObjectKind.ACTOR, "x", new byte[1]));
            var delivered = assertInstanceOf(Deliver.class, b.onFrame(1, asked.outbound().bytes()));
            SessionRef session = a.openSession(7, 1);
            var bind = a.bind(7, "x", b.ownerRouteEnd(ObjectKind.ACTOR, "x").orElseThrow());
            var answer = assertInstanceOf(Send.class, b.onFrame(1, bind.bytes()));
            assertInstanceOf(Bound.class, a.onFrame(2, answer.outbounds().get(0).bytes()));

            byte[] big = new byte[9];
            Operation op = delivered.operation();
            Map<String, Executable> calls = new LinkedHashMap<>();
            calls.put("send", () -> a.send(ObjectKind.ACTOR, "x", big));
            calls.put("send(ByteBuffer)", () -> a.send(ObjectKind.ACTOR, "x", ByteBuffer.wrap(big), SendOptions.DEFAULT));
            calls.put("request", () -> a.request(ObjectKind.ACTOR, "x", big));
            calls.put("reply", () -> b.reply(op, big));
            calls.put("reply(ByteBuffer)", () -> b.reply(op, ByteBuffer.wrap(big)));
            calls.put("replyError", () -> b.replyError(op, "Handler", 1, "m".repeat(4097)));
            calls.put("sessionSend", () -> a.sessionSend(7, "x", big));
            calls.put("push", () -> b.push("x", session, big));
            for (var call : calls.entrySet()) {
                String name = call.getKey();
                var e = assertThrows(ZlinkInputException.class, call.getValue(), name);
                assertInstanceOf(IllegalArgumentException.class, e, name);
                // The kind is the bridge's, the same in every language: a reply's is TooLarge.
                assertEquals(name.startsWith("reply") ? "TooLarge" : "PayloadTooLarge", e.kind(), name);
                assertTrue(e.getMessage().contains(name.equals("replyError") ? "4097 bytes" : "9 bytes, over the 8-byte"),
                        name + ": " + e.getMessage());
            }
            // At the bound, each goes through.
            byte[] fits = new byte[8];
            assertInstanceOf(Submitted.class, a.send(ObjectKind.ACTOR, "x", fits));
            assertInstanceOf(Submitted.class, a.request(ObjectKind.ACTOR, "x", fits));
            assertEquals(1, b.reply(op, fits).to().rid());
            assertInstanceOf(SessionSent.class, a.sessionSend(7, "x", fits));
            assertTrue(b.push("x", session, fits).isPresent());
        }
    }
}
