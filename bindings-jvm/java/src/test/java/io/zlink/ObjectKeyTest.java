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
}
