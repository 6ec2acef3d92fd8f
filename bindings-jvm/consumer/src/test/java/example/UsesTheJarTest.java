package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zlink.MemoryStore;
import io.zlink.NodeIdentity;
import io.zlink.ObjectKind;
import io.zlink.ReadyRoute;
import io.zlink.ZlinkMetrics;
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

    @Test
    void zlinkMetricsNeedsOnlyMicrometerCore() {
        // io.zlink:zlink's Micrometer dependencies are optional: none came with it.
        assertThrows(ClassNotFoundException.class,
                () -> Class.forName("io.micrometer.prometheusmetrics.PrometheusMeterRegistry"));
        try (var store = new MemoryStore();
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                var sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build();
                var metrics = new ZlinkMetrics(sender)) {
            owner.activate(ObjectKind.ACTOR, "a");
            sender.resolve(ObjectKind.ACTOR, "a");
            var registry = new SimpleMeterRegistry();
            metrics.bindTo(registry);
            assertEquals(1.0, registry.get("zlink.resolutions").tag("result", "ready_route").functionCounter().count());
            assertEquals(1.0, registry.get("zlink.store.read.duration").functionTimer().count());
        }
    }
}
