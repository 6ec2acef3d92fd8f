package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ResolveTest {
    private ManualClock clock;
    private MemoryStore store;
    private ZlinkRuntime owner;
    private ZlinkRuntime sender;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        store = new MemoryStore(clock);
        owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).clock(clock).build();
        sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).clock(clock).build();
    }

    @AfterEach
    void stop() {
        sender.close();
        owner.close();
        store.close();
        clock.close();
    }

    @Test
    void anActivatedActorResolvesToItsOwnerThenFromTheCache() {
        OwnedObject o = owner.activate(ObjectKind.ACTOR, "user-42");
        assertEquals(AuthorityState.READY, o.state());
        Resolution r = sender.resolve(ObjectKind.ACTOR, "user-42");
        ReadyRoute route = assertInstanceOf(ReadyRoute.class, r);
        assertEquals("main", route.mesh());
        assertEquals(1, route.node());
        assertEquals(o.objectGeneration(), route.fence().objectGeneration());
        assertEquals(route, sender.lookupCached(ObjectKind.ACTOR, "user-42").orElseThrow());
        long reads = sender.stats().get("store_reads");
        assertEquals(route, sender.resolve(ObjectKind.ACTOR, "user-42"));
        assertEquals(reads, sender.stats().get("store_reads"), "a hit reads nothing");
    }

    @Test
    void resolveManyGivesWhatResolveGivesInOrderInOneCall() {
        String[] ids = new String[20];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = "m-" + i + (i % 3 == 0 ? "-\u00e9\u4e2d" : "");
            if (i % 2 == 0) {
                owner.activate(ObjectKind.ACTOR, ids[i]);
            }
        }
        Resolution[] many = sender.resolveMany(ObjectKind.ACTOR, ids);
        assertEquals(ids.length, many.length);
        for (int i = 0; i < ids.length; i++) {
            assertEquals(sender.resolve(ObjectKind.ACTOR, ids[i]), many[i], ids[i]);
            assertEquals(i % 2 == 0, many[i] instanceof ReadyRoute, ids[i]);
        }
        assertEquals(0, sender.resolveMany(ObjectKind.ACTOR).length);
        var bad = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> sender.resolveMany(ObjectKind.ACTOR, "ok", ""));
        assertTrue(bad.getMessage().contains("empty"), bad.getMessage());
    }

    @Test
    void theFourResultsAreDistinct() {
        assertEquals(new Missing(), sender.resolve(ObjectKind.SPOT, "nobody"));
        assertTrue(sender.lookupCached(ObjectKind.SPOT, "nobody").isEmpty());
        owner.create(ObjectKind.SPOT, "s");
        assertEquals(new Unavailable(UnavailableReason.CREATING), sender.resolve(ObjectKind.SPOT, "s"));
        owner.publishReady(ObjectKind.SPOT, "s");
        assertInstanceOf(ReadyRoute.class, sender.resolve(ObjectKind.SPOT, "s"));
        owner.beginRelease(ObjectKind.SPOT, "s");
        sender.onOwnerLeaseInvalidated(1, 1);
        assertEquals(new Unavailable(UnavailableReason.RELEASING), sender.resolve(ObjectKind.SPOT, "s"));
        owner.completeRelease(ObjectKind.SPOT, "s");
        assertEquals(Missing.INSTANCE, sender.resolve(ObjectKind.SPOT, "s"));
    }

    @Test
    void anExpiredLeaseIsUnavailable() {
        owner.activate(ObjectKind.ACTOR, "a");
        clock.advance(owner.config().ownerLeaseDuration() + 1);
        Resolution r = sender.resolve(ObjectKind.ACTOR, "a");
        assertEquals(new Unavailable(UnavailableReason.LEASE_EXPIRED), r);
    }

    @Test
    void theOwnerKnowsWhatItOwns() {
        owner.activate(ObjectKind.ACTOR, "a");
        assertEquals(1, owner.ownedCount());
        assertEquals(AuthorityState.READY, owner.owned(ObjectKind.ACTOR, "a").orElseThrow().state());
        RouteEnd end = owner.ownerRouteEnd(ObjectKind.ACTOR, "a").orElseThrow();
        assertEquals(new NodeRef("main", 1, 1), end.node());
        assertTrue(sender.ownerRouteEnd(ObjectKind.ACTOR, "a").isEmpty());
        assertEquals(new NodeIdentity("main", 2, 1, 1), sender.identity());
        assertEquals("ZlinkRuntime(mesh=main, rid=2, generation=1)", sender.toString());
    }

    @Test
    void resolveAsyncCompletesWithTheResolution() throws Exception {
        owner.activate(ObjectKind.ACTOR, "a");
        CompletableFuture<Resolution> miss = sender.resolveAsync(ObjectKind.ACTOR, "a");
        assertInstanceOf(ReadyRoute.class, miss.get(10, TimeUnit.SECONDS));
        Resolution hit = sender.resolveAsync(ObjectKind.ACTOR, "a").get(10, TimeUnit.SECONDS);
        assertEquals(miss.get(), hit);
        List<CompletableFuture<Resolution>> many = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            many.add(sender.resolveAsync(ObjectKind.SPOT, "x" + i));
        }
        for (var f : many) {
            assertEquals(Missing.INSTANCE, f.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void statsAreNamedCounters() {
        owner.activate(ObjectKind.ACTOR, "a");
        sender.resolve(ObjectKind.ACTOR, "a");
        var s = sender.stats();
        assertEquals(1L, s.get("resolutions.ready_route"));
        assertTrue(s.containsKey("follow.relays"), s.keySet().toString());
    }
}
