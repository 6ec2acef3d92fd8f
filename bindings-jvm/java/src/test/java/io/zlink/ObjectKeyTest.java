package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Interned keys give the same answers as IDs, through the fast path. */
class ObjectKeyTest {
    @Test
    void theFastPathAgreesWithTheCheckedOne() {
        try (var store = new MemoryStore();
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                var sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
            owner.activate(ObjectKind.ACTOR, "a");
            ObjectKey a = ObjectKey.of(ObjectKind.ACTOR, "a");
            ObjectKey b = ObjectKey.of(ObjectKind.ACTOR, "b");
            assertTrue(sender.lookupCached(a).isEmpty(), "cold");
            ReadyRoute r = assertInstanceOf(ReadyRoute.class, sender.resolve(a));
            assertEquals(r, sender.lookupCached(a).orElseThrow());
            assertEquals(sender.lookupCached(ObjectKind.ACTOR, "a"), sender.lookupCached(a));
            assertEquals(Missing.INSTANCE, sender.resolve(b));
            ReadyRoute[] many = sender.lookupCachedMany(new ObjectKey[] {a, b, a});
            assertEquals(r, many[0]);
            assertNull(many[1]);
            assertEquals(r, many[2]);
            assertEquals(ObjectKey.of(ObjectKind.ACTOR, "a"), a);
        }
    }

    @Test
    void stringIdsAnswerTheSameOnTheFastPathAndOffIt() {
        try (var store = new MemoryStore();
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                var sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
            // ASCII (the fast path), then IDs it leaves to the checked one.
            for (String id : new String[] {"a", "\u00e9-actor", "nul\u0000inside", "x".repeat(200)}) {
                assertTrue(sender.lookupCached(ObjectKind.ACTOR, id).isEmpty(), "cold " + id);
                owner.activate(ObjectKind.ACTOR, id);
                ReadyRoute r = assertInstanceOf(ReadyRoute.class, sender.resolve(ObjectKind.ACTOR, id));
                assertEquals(r, sender.lookupCached(ObjectKind.ACTOR, id).orElseThrow(), id);
                assertEquals(r, sender.resolve(ObjectKind.ACTOR, id), "a hit " + id);
                assertTrue(sender.lookupCached(ObjectKind.SPOT, id).isEmpty(), "other kind " + id);
            }
            assertThrows(ZlinkInputException.class, () -> sender.lookupCached(ObjectKind.ACTOR, ""));
            assertThrows(ZlinkInputException.class, () -> sender.lookupCached(ObjectKind.ACTOR, "\ud800"));
            assertThrows(NullPointerException.class, () -> sender.lookupCached(ObjectKind.ACTOR, null));
            assertThrows(NullPointerException.class, () -> sender.lookupCached(null, "a"));
            assertThrows(ZlinkInputException.class, () -> sender.resolve(ObjectKind.ACTOR, ""));
            assertThrows(NullPointerException.class, () -> sender.resolve(ObjectKind.ACTOR, null));
            var stats = sender.stats();
            assertEquals(8L, stats.get("cache_hits"), "one per hit, as before");
            // Which IDs the fast path answers itself (1 hit, 0 miss), and
            // which it leaves to the checked one (-1).
            long[] out = new long[7];
            long rt = sender.handle.value;
            int actor = ObjectKind.ACTOR.code();
            assertEquals(1, Native.lookupString(rt, actor, "a", out));
            assertEquals(sender.lookupCached(ObjectKind.ACTOR, "a").orElseThrow().node(), out[0]);
            assertEquals(0, Native.lookupString(rt, actor, "cold", out));
            for (String id : new String[] {"", "\u00e9-actor", "nul\u0000inside", "x".repeat(200)}) {
                assertEquals(-1, Native.lookupString(rt, actor, id, out), id);
            }
            assertEquals(-1, Native.lookupString(rt, 99, "a", out), "an unknown kind code");
        }
        var small = RoutingConfig.builder().maxObjectIdBytes(4).build();
        try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).config(small).build()) {
            var e = assertThrows(ZlinkInputException.class, () -> rt.lookupCached(ObjectKind.SPOT, "longer"));
            assertEquals("ObjectIdTooLong", e.kind());
        }
    }

    @Test
    void badKeysAndClosedRuntimesTakeTheCheckedPath() {
        assertThrows(ZlinkInputException.class, () -> ObjectKey.of(ObjectKind.ACTOR, ""));
        assertThrows(NullPointerException.class, () -> ObjectKey.of(null, "a"));
        var small = RoutingConfig.builder().maxObjectIdBytes(4).build();
        ObjectKey longId = ObjectKey.of(ObjectKind.SPOT, "longer-than-four");
        var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).config(small).build();
        var e = assertThrows(ZlinkInputException.class, () -> rt.lookupCached(longId));
        assertEquals("ObjectIdTooLong", e.kind());
        rt.close();
        assertThrows(ZlinkClosedException.class, () -> rt.lookupCached(ObjectKey.of(ObjectKind.SPOT, "s")));
        assertThrows(ZlinkClosedException.class, () -> rt.lookupCachedMany(new ObjectKey[] {longId}));
    }

    /** What a runtime throws for {@code id}, to compare with what making a key throws. */
    private static ZlinkInputException refused(ZlinkRuntime rt, String id) {
        return assertThrows(ZlinkInputException.class, () -> rt.resolve(ObjectKind.ACTOR, id));
    }

    @Test
    void aKeyIsCheckedWhenItIsMadeAsARuntimeChecksTheId() {
        // ObjectKey.of(kind, id) checks against the default config's cap, as documented.
        assertEquals(1024, RoutingConfig.defaults().maxObjectIdBytes());
        try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).build()) {
            // 1..=1024 UTF-8 bytes, counted in bytes: 512 two-byte characters fit, one more byte does not.
            ObjectKey.of(ObjectKind.ACTOR, "x".repeat(1024));
            ObjectKey.of(ObjectKind.ACTOR, "\u00e9".repeat(512));
            for (String bad : new String[] {"", "x".repeat(1025), "\u00e9".repeat(512) + "x", "x".repeat(70_000)}) {
                var made = assertThrows(ZlinkInputException.class, () -> ObjectKey.of(ObjectKind.ACTOR, bad));
                var runtime = refused(rt, bad);
                assertEquals(runtime.kind(), made.kind(), "kind, " + bad.length() + " chars");
                assertEquals(runtime.getMessage(), made.getMessage());
            }
            assertEquals("EmptyObjectId", assertThrows(ZlinkInputException.class,
                    () -> ObjectKey.of(ObjectKind.SPOT, "")).kind());
            var tooLong = assertThrows(ZlinkInputException.class, () -> ObjectKey.of(ObjectKind.SPOT, "x".repeat(1025)));
            assertEquals("ObjectIdTooLong", tooLong.kind());
            assertEquals("object id is 1025 bytes, over the 1024-byte cap", tooLong.getMessage());
            assertEquals("InvalidUtf8", assertThrows(ZlinkInputException.class,
                    () -> ObjectKey.of(ObjectKind.SPOT, "\ud800")).kind());
        }
        // A runtime with a larger cap: keys made with its config.
        var big = RoutingConfig.builder().maxObjectIdBytes(4096).build();
        try (var store = new MemoryStore();
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).config(big).build();
                var sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).config(big).build()) {
            String id = "y".repeat(2000);
            assertThrows(ZlinkInputException.class, () -> ObjectKey.of(ObjectKind.ACTOR, id));
            ObjectKey key = ObjectKey.of(ObjectKind.ACTOR, id, sender.config());
            owner.activate(ObjectKind.ACTOR, id);
            assertInstanceOf(ReadyRoute.class, sender.resolve(key));
            assertEquals(sender.resolve(ObjectKind.ACTOR, id), sender.lookupCached(key).orElseThrow());
            String over = "y".repeat(4097);
            var made = assertThrows(ZlinkInputException.class, () -> ObjectKey.of(ObjectKind.ACTOR, over, big));
            assertEquals(refused(sender, over).getMessage(), made.getMessage());
            assertThrows(NullPointerException.class, () -> ObjectKey.of(ObjectKind.ACTOR, id, null));
        }
    }
}
