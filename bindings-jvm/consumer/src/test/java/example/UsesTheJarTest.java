package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.zlink.MemoryStore;
import io.zlink.NodeIdentity;
import io.zlink.ObjectKind;
import io.zlink.ReadyRoute;
import io.zlink.ZlinkRuntime;
import org.junit.jupiter.api.Test;

class UsesTheJarTest {
    @Test
    void theLibraryLoadsFromTheJar() {
        assertNull(System.getProperty("zlink.library.path"));
        try (var store = new MemoryStore();
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                var sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
            owner.activate(ObjectKind.ACTOR, "a");
            var route = assertInstanceOf(ReadyRoute.class, sender.resolve(ObjectKind.ACTOR, "a"));
            assertEquals(1, route.node());
        }
    }
}
