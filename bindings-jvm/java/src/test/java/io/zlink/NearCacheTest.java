package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The near cache (NearCache): a hit is the core's own answer, served in Java; every change in the
 * core (a rejection, a lease invalidation, a store recovery, an expiry, a smaller ID cap, a close)
 * makes the next lookup ask the core again and return its new answer; near hits count in
 * cache_hits.
 */
class NearCacheTest {
    private static final ObjectKind A = ObjectKind.ACTOR;
    private static final long MAX_AGE_MS = 1_000;

    private ManualClock clock;
    private MemoryStore store;
    private ZlinkRuntime owner;
    private ZlinkRuntime other;
    private ZlinkRuntime sender;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        store = new MemoryStore(clock);
        RoutingConfig config = RoutingConfig.builder().routeCacheMaxAge(MAX_AGE_MS)
                .ownerLeaseDuration(3_600_000).build();
        owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).clock(clock).config(config).build();
        sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).clock(clock).config(config).build();
        other = ZlinkRuntime.builder(new NodeIdentity("main", 3)).store(store).clock(clock).config(config).build();
    }

    @AfterEach
    void stop() {
        sender.close();
        other.close();
        owner.close();
        store.close();
        clock.close();
    }

    /** The core's own answer for {@code id}, off the near cache (the checked path). */
    static Optional<ReadyRoute> core(ZlinkRuntime rt, String id) {
        byte[] hit = Native.lookupCached(rt.handle.value, A.code(), Utf8.of(id, "id"));
        return hit == null ? Optional.empty() : Optional.of(Decoder.read(hit, Decoder::readyRoute));
    }

    /** A lookup through the near cache: its answer, checked to be the core's; whether it was a near hit. */
    private boolean near(String id) {
        long hits = sender.nearHits();
        Optional<ReadyRoute> r = sender.lookupCached(A, id);
        assertEquals(core(sender, id), r, id);
        return sender.nearHits() == hits + 1;
    }

    /** Caches {@code id}'s route in the sender's core and near cache; the route. */
    private ReadyRoute cached(String id) {
        ReadyRoute r = assertInstanceOf(ReadyRoute.class, sender.resolve(A, id));
        assertTrue(!near(id), "the first lookup fills the near cache from the core");
        assertTrue(near(id), "the second is a near hit");
        return r;
    }

    @Test
    void aNearHitIsTheCoresAnswerAllocatesNothingAndCounts() {
        owner.activate(A, "a");
        ReadyRoute r = cached("a");
        Optional<ReadyRoute> first = sender.lookupCached(A, "a");
        assertSame(first, sender.lookupCached(A, "a"), "the same Optional: a hit allocates nothing");
        assertEquals(r, first.orElseThrow());

        long hits = sender.stats().get("cache_hits");
        long near = sender.nearHits();
        for (int i = 0; i < 10; i++) {
            sender.lookupCached(A, "a");
        }
        assertEquals(near + 10, sender.nearHits());
        assertEquals(hits + 10, sender.stats().get("cache_hits"), "near hits count in cache_hits");

        // Interned keys, resolve and batches share the entries.
        ObjectKey a = ObjectKey.of(A, "a");
        ObjectKey b = ObjectKey.of(A, "b");
        assertSame(first, sender.lookupCached(a));
        assertEquals(r, sender.resolve(a));
        assertEquals(r, sender.resolve(A, "a"));
        ReadyRoute[] many = sender.lookupCachedMany(new ObjectKey[] {a, b, a});
        assertEquals(r, many[0]);
        assertNull(many[1]);
        assertEquals(r, many[2]);
        assertEquals(near + 15, sender.nearHits(), "5 more near hits");
        assertEquals(hits + 15, sender.stats().get("cache_hits"));

        // A batch fills the near cache too.
        owner.activate(A, "b");
        ReadyRoute rb = assertInstanceOf(ReadyRoute.class, sender.resolve(b));
        assertEquals(rb, sender.lookupCachedMany(new ObjectKey[] {b})[0]);
        long before = sender.nearHits();
        assertEquals(rb, sender.lookupCachedMany(new ObjectKey[] {b, a})[0]);
        assertEquals(before + 2, sender.nearHits());
    }

    @Test
    void anExpiredRouteIsNotServedAtTheCoresInstant() {
        owner.activate(A, "a");
        cached("a");
        // Under a manual clock the slack is 0: the near cache stops at the core's very nanosecond.
        clock.advance(MAX_AGE_MS - 1);
        assertTrue(near("a"));
        clock.advance(1);
        assertTrue(core(sender, "a").isEmpty(), "expired in the core");
        assertTrue(!near("a"), "and not served near");
        cached("a");
    }

    @Test
    void aRejectionMakesTheNextLookupFallBackToTheCore() {
        owner.activate(A, "a");
        ReadyRoute old = cached("a");
        // The object moves to node 3; the sender's cached route still names node 1, as the core's.
        owner.beginRelease(A, "a");
        owner.completeRelease(A, "a");
        other.activate(A, "a");
        assertTrue(near("a"));
        Submitted s = assertInstanceOf(Submitted.class, sender.send(A, "a", new byte[] {1}));
        assertEquals(1, s.outbound().to().rid());
        Reject reject = assertInstanceOf(Reject.class, owner.onFrame(2, s.outbound().bytes()));
        sender.onFrame(1, reject.outbound().bytes());
        assertTrue(core(sender, "a").isEmpty(), "the rejection removed the route");
        assertTrue(!near("a"), "not served near after the rejection");
        ReadyRoute moved = cached("a");
        assertEquals(3, moved.node());
        assertTrue(!old.equals(moved));
    }

    @Test
    void storeRecoveriesLeaseInvalidationsAndRenewalsFallBack() {
        owner.activate(A, "a");
        owner.activate(A, "b");
        other.activate(A, "c");
        cached("a");
        cached("b");
        cached("c");
        sender.onStoreRecovery();
        for (String id : new String[] {"a", "b", "c"}) {
            assertTrue(!near(id), "a store recovery clears the cache, near too: " + id);
            cached(id);
        }
        // Node 1's lease is invalidated: its routes go, node 3's stay.
        sender.onOwnerLeaseInvalidated(1, 1);
        assertTrue(!near("a"));
        assertTrue(!near("b"));
        assertTrue(near("c"));
        // A renewal the sender has not seen: its route is still the core's answer, until it expires.
        other.renewLease(A, "c");
        assertTrue(near("c"));
        clock.advance(MAX_AGE_MS);
        assertTrue(!near("c"));
        assertTrue(cached("c").fence().storeVersion() > 2, "the renewed route");
    }

    @Test
    void aSmallerIdCapRefusesACachedIdAsTheCoreDoes() {
        owner.activate(A, "abcdef");
        ReadyRoute r = cached("abcdef");
        ObjectKey key = ObjectKey.of(A, "abcdef");
        sender.updateConfig(RoutingConfig.builder().routeCacheMaxAge(MAX_AGE_MS).ownerLeaseDuration(3_600_000)
                .maxObjectIdBytes(4).build());
        var e = assertThrows(ZlinkInputException.class, () -> sender.lookupCached(A, "abcdef"));
        assertEquals("ObjectIdTooLong", e.kind());
        assertEquals("ObjectIdTooLong", assertThrows(ZlinkInputException.class, () -> sender.lookupCached(key)).kind());
        sender.updateConfig(RoutingConfig.builder().routeCacheMaxAge(MAX_AGE_MS).ownerLeaseDuration(3_600_000).build());
        long hits = sender.nearHits();
        assertEquals(r, sender.lookupCached(key).orElseThrow());
        assertEquals(hits + 1, sender.nearHits(), "served near again");
    }

    @Test
    void idsTooLongForTheNearTableAskTheCoreEveryTime() {
        String longest = "x".repeat(38);
        String tooLong = "y".repeat(39);
        owner.activate(A, longest);
        owner.activate(A, tooLong);
        cached(longest);
        ReadyRoute r = assertInstanceOf(ReadyRoute.class, sender.resolve(A, tooLong));
        for (int i = 0; i < 3; i++) {
            assertTrue(!near(tooLong), "a long ID is never a near hit");
        }
        assertEquals(r, sender.lookupCached(ObjectKey.of(A, tooLong)).orElseThrow());
        assertEquals(r, sender.lookupCachedMany(new ObjectKey[] {ObjectKey.of(A, tooLong)})[0]);
        assertEquals(1, sender.nearSize(), "only the 38-byte ID is kept");
        // Non-ASCII IDs: the String form leaves them to the checked path, interned keys keep them.
        String accented = "\u00e9t\u00e9";
        owner.activate(A, accented);
        sender.resolve(A, accented);
        assertTrue(!near(accented));
        ObjectKey k = ObjectKey.of(A, accented);
        sender.lookupCached(k);
        long hits = sender.nearHits();
        assertEquals(core(sender, accented), sender.lookupCached(k));
        assertEquals(hits + 1, sender.nearHits());
    }

    @Test
    void theNearCacheHoldsNoMoreThanTheRouteCacheCapacity() {
        RoutingConfig small = RoutingConfig.builder().routeCacheCapacity(8).routeCacheMaxAge(MAX_AGE_MS)
                .ownerLeaseDuration(3_600_000).build();
        try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 4)).store(store).clock(clock).config(small)
                .build()) {
            for (int i = 0; i < 40; i++) {
                owner.activate(A, "c" + i);
                rt.resolve(A, "c" + i);
                rt.lookupCached(A, "c" + i);
                assertTrue(rt.nearSize() <= 8, "near entries: " + rt.nearSize());
            }
            for (int i = 0; i < 40; i++) {
                assertEquals(core(rt, "c" + i), rt.lookupCached(A, "c" + i), "c" + i);
            }
        }
    }

    @Test
    void aClosedRuntimeThrowsThoughItsNearCacheHeldTheRoute() {
        owner.activate(A, "a");
        cached("a");
        ObjectKey a = ObjectKey.of(A, "a");
        sender.close();
        assertThrows(ZlinkClosedException.class, () -> sender.lookupCached(A, "a"));
        assertThrows(ZlinkClosedException.class, () -> sender.lookupCached(a));
        assertThrows(ZlinkClosedException.class, () -> sender.lookupCachedMany(new ObjectKey[] {a}));
        assertThrows(ZlinkClosedException.class, () -> sender.resolve(A, "a"));
        assertEquals(0, sender.nearSize());
    }

    @Test
    void turnedOffEveryLookupAsksTheCoreWithTheSameAnswers() {
        try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 4)).store(store).clock(clock).nearCache(false)
                .build()) {
            owner.activate(A, "a");
            ReadyRoute r = assertInstanceOf(ReadyRoute.class, rt.resolve(A, "a"));
            long hits = rt.stats().get("cache_hits");
            for (int i = 0; i < 3; i++) {
                assertEquals(r, rt.lookupCached(A, "a").orElseThrow());
                assertEquals(r, rt.lookupCached(ObjectKey.of(A, "a")).orElseThrow());
            }
            assertEquals(hits + 6, rt.stats().get("cache_hits"));
            assertEquals(0, rt.nearHits());
            assertEquals(0, rt.nearSize());
        }
    }

    @Test
    void underTheSystemClockTheNearCacheStopsNoLaterThanTheCore() throws InterruptedException {
        RoutingConfig brief = RoutingConfig.builder().routeCacheMaxAge(200).build();
        try (var s = new MemoryStore();
                var o = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(s).config(brief).build();
                var rt = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(s).config(brief).build()) {
            o.activate(A, "a");
            rt.resolve(A, "a");
            rt.lookupCached(A, "a");
            long nearServed = 0;
            boolean coreStopped = false;
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (System.nanoTime() < deadline) {
                long hits = rt.nearHits();
                Optional<ReadyRoute> r = rt.lookupCached(A, "a");
                boolean near = rt.nearHits() > hits;
                assertTrue(!(near && coreStopped), "a near hit after the core stopped serving the route");
                nearServed += near ? 1 : 0;
                if (r.isEmpty() && core(rt, "a").isEmpty()) {
                    coreStopped = true;
                    // And later ones: nothing is served near any more.
                    for (int i = 0; i < 1000; i++) {
                        assertTrue(rt.lookupCached(A, "a").isEmpty());
                    }
                    break;
                }
                Thread.sleep(1);
            }
            assertTrue(coreStopped, "the route expired");
            assertTrue(nearServed > 10, "served near before: " + nearServed);
        }
    }
}
