package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The binding over a real redis-server on a free loopback port. */
class RedisTest {
    private static RedisServer redis;

    @BeforeAll
    static void start() throws Exception {
        redis = new RedisServer();
    }

    @AfterAll
    static void stop() throws Exception {
        redis.close();
    }

    private static RedisStore store(String prefix) {
        return new RedisStore(redis.url(), new RedisStore.Options().prefix(prefix));
    }

    @Test
    void aThousandConcurrentResolvesOfOneColdIdReadTheStoreOnce() throws Exception {
        try (var store = store("thousand");
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                var sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
            owner.activate(ObjectKind.ACTOR, "cold");
            List<CompletableFuture<Resolution>> all = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                all.add(sender.resolveAsync(ObjectKind.ACTOR, "cold"));
            }
            for (var f : all) {
                ReadyRoute r = assertInstanceOf(ReadyRoute.class, f.get(10, TimeUnit.SECONDS));
                assertEquals(1, r.node());
            }
            assertEquals(1L, sender.stats().get("store_reads"), "one store read for 1,000 callers");
        }
    }

    @Test
    void theCallersThreadNeverBlocksOnTheAsyncFormWhileRedisIsPaused() throws Exception {
        try (var store = store("paused");
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                var sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
            owner.activate(ObjectKind.ACTOR, "a");
            redis.pause();
            CompletableFuture<Resolution> resolved;
            CompletableFuture<SendResult> sent;
            long start = System.nanoTime();
            try {
                resolved = sender.resolveAsync(ObjectKind.ACTOR, "a");
                sent = sender.sendAsync(ObjectKind.ACTOR, "a", new byte[] {1}, SendOptions.DEFAULT);
                long tookMs = (System.nanoTime() - start) / 1_000_000;
                assertTrue(tookMs < 500, "the async forms returned at once (" + tookMs + " ms)");
                Thread.sleep(100);
                assertFalse(resolved.isDone(), "the store has not answered yet");
            } finally {
                redis.resume();
            }
            assertInstanceOf(ReadyRoute.class, resolved.get(30, TimeUnit.SECONDS));
            assertInstanceOf(Submitted.class, sent.get(30, TimeUnit.SECONDS));
        }
    }

    private void cli(String... args) throws Exception {
        var command = new ArrayList<String>(List.of("redis-cli", "-p", Integer.toString(redis.port)));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor());
    }

    /**
     * The store loses x's record (as a failover to a stale replica does) and every client
     * reconnects (a new store epoch): the owner holds the frame for x, re-reads its records, gives
     * x up with an OwnershipLost and refuses the held frame; kept stays its own.
     */
    @Test
    void anOwnerWhoseRecordARecoveryLostHoldsItsWorkThenGivesTheObjectUp() throws Exception {
        var options = new RedisStore.Options().prefix("fence").epochCheckInterval(Duration.ofMillis(50));
        try (var ownerStore = new RedisStore(redis.url(), options);
                var senderStore = new RedisStore(redis.url(), options);
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(ownerStore).build();
                var sender = ZlinkRuntime.builder(new NodeIdentity("main", 4)).store(senderStore).build()) {
            owner.activate(ObjectKind.ACTOR, "x");
            owner.activate(ObjectKind.ACTOR, "kept");
            var toX = assertInstanceOf(Submitted.class, sender.send(ObjectKind.ACTOR, "x", new byte[] {1}));
            var toKept = assertInstanceOf(Submitted.class, sender.send(ObjectKind.ACTOR, "kept", new byte[] {1}));
            cli("DEL", "fence:{actor:x}");
            cli("CLIENT", "KILL", "TYPE", "normal");
            Thread.sleep(500);
            assertInstanceOf(Held.class, owner.onFrame(4, toX.outbound().bytes()));
            assertInstanceOf(Held.class, owner.onFrame(4, toKept.outbound().bytes()));
            List<Inbound> decided = new ArrayList<>();
            long giveUp = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (decided.stream().noneMatch(d -> d instanceof OwnershipLost)
                    || decided.stream().noneMatch(d -> d instanceof Deliver)) {
                assertTrue(System.nanoTime() < giveUp, decided.toString());
                var due = owner.nextDeadline();
                if (due.isPresent() && due.getAsLong() <= owner.now()) {
                    decided.addAll(owner.onTimeout());
                }
                Thread.sleep(5);
            }
            var lost = decided.stream().filter(d -> d instanceof OwnershipLost).toList();
            assertEquals(List.of(new OwnershipLost(ObjectKind.ACTOR, "x", LostReason.MISSING)), lost);
            assertTrue(owner.owned(ObjectKind.ACTOR, "x").isEmpty());
            assertTrue(owner.owned(ObjectKind.ACTOR, "kept").isPresent());
            var refusal = (Reject) decided.stream().filter(d -> d instanceof Reject).findFirst().orElseThrow();
            var ended = assertInstanceOf(Ended.class, sender.onFrame(1, refusal.outbound().bytes()));
            assertEquals("Unavailable", ended.failure());
        }
    }

    @Test
    void aDeadStoreIsAStoreFailureNotAnException() throws Exception {
        try (var store = store("dead");
                var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1))
                        .config(RoutingConfig.builder().storeTimeout(200).storeAttempts(1).build())
                        .store(store).build()) {
            redis.pause();
            try {
                Resolution r = rt.resolve(ObjectKind.ACTOR, "x");
                StoreFailure f = assertInstanceOf(StoreFailure.class, r);
                assertEquals(StoreErrorKind.TIMEOUT, f.kind());
            } finally {
                redis.resume();
            }
        }
    }

    @Test
    void atMostThreadConnectionsBlockedThreadsReadOnTheirOwn() throws Exception {
        for (int seats : new int[] {0, 1}) {
            try (var store = new RedisStore(redis.url(),
                            new RedisStore.Options().prefix("seats" + seats).threadConnections(seats));
                    var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                    var sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
                int n = 3;
                for (int i = 0; i < n; i++) {
                    owner.activate(ObjectKind.ACTOR, "t" + i);
                }
                int before = redis.connections();
                var resolved = new java.util.concurrent.CountDownLatch(n);
                var done = new java.util.concurrent.CountDownLatch(1);
                List<Resolution> answers = java.util.Collections.synchronizedList(new ArrayList<>());
                List<Thread> threads = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String id = "t" + i;
                    threads.add(new Thread(() -> {
                        answers.add(sender.resolve(ObjectKind.ACTOR, id));
                        resolved.countDown();
                        try {
                            done.await(); // the thread, and so its connection, lives until counted
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }));
                }
                threads.forEach(Thread::start);
                try {
                    assertTrue(resolved.await(10, TimeUnit.SECONDS));
                    assertEquals(before + seats, redis.connectionsBecome(before + seats), "seats " + seats);
                } finally {
                    done.countDown();
                    for (var t : threads) {
                        t.join();
                    }
                }
                answers.forEach(a -> assertInstanceOf(ReadyRoute.class, a));
                assertEquals((long) n, sender.stats().get("store_reads"));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new RedisStore.Options().threadConnections(-1));
    }

    @Test
    void aStoreWithEachWriteAcksActivatesAndResolves() throws Exception {
        var modes = List.of(new RedisStore.Options(),
                new RedisStore.Options().writeAcks(WriteAcks.allReplicas()).writeAckTimeout(Duration.ofMillis(500)),
                // primaryOnly waits for no replica: a zero ack timeout is allowed.
                new RedisStore.Options().writeAcks(WriteAcks.primaryOnly()).writeAckTimeout(Duration.ZERO));
        int i = 0;
        for (var options : modes) {
            // One server without replicas: no write waits for any.
            try (var store = new RedisStore(redis.url(), options.prefix("acks" + i++));
                    var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                    var sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
                owner.activate(ObjectKind.ACTOR, "a");
                assertInstanceOf(ReadyRoute.class, sender.resolve(ObjectKind.ACTOR, "a"));
            }
        }
    }

    @Test
    void writeAcksTheStoreCannotMeetAreConfigErrors() {
        var five = assertThrows(StoreException.class, () -> new RedisStore(redis.url(),
                new RedisStore.Options().writeAcks(WriteAcks.replicas(5))));
        assertEquals("Config", five.kind());
        assertTrue(five.getMessage().contains("has 0"), five.getMessage());
        // Refused before connecting: nothing listens on port 1.
        for (int n : new int[] {0, -1}) {
            var e = assertThrows(StoreException.class, () -> new RedisStore("redis://127.0.0.1:1",
                    new RedisStore.Options().writeAcks(WriteAcks.replicas(n))));
            assertEquals("Config", e.kind());
            assertTrue(e.getMessage().contains("asks for " + n + " replicas: at least 1"), e.getMessage());
        }
        var zero = assertThrows(StoreException.class, () -> new RedisStore("redis://127.0.0.1:1",
                new RedisStore.Options().writeAckTimeout(Duration.ZERO)));
        assertEquals("Config", zero.kind());
        var negative = assertThrows(ZlinkInputException.class, () -> new RedisStore("redis://127.0.0.1:1",
                new RedisStore.Options().writeAckTimeout(Duration.ofMillis(-1))));
        assertEquals("Negative", negative.kind());
        assertThrows(NullPointerException.class, () -> new RedisStore.Options().writeAcks(null));
        assertEquals(WriteAcks.replicas(2), WriteAcks.replicas(2));
    }

    @Test
    void aBadUrlIsAnErrorNamingIt() {
        var e = assertThrows(ZlinkException.class, () -> new RedisStore("http://nowhere"));
        assertTrue(e.getMessage().contains("http"), e.getMessage());
        var unreachable = assertThrows(StoreException.class, () -> new RedisStore("redis://127.0.0.1:1",
                new RedisStore.Options().connectTimeout(Duration.ofMillis(200))));
        assertEquals("Unreachable", unreachable.kind());
    }
}
