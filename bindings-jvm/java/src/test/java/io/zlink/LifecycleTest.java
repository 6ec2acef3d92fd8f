package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Closing from callbacks, callbacks that wait, and a JVM that exits with runtimes left open. */
class LifecycleTest {
    @Test
    void aCloseRefusedInsideItsOwnCompletionLeavesTheRuntimeClosable() throws Exception {
        var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).build();
        long before = Native.liveHandles();
        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        rt.activateAsync(ObjectKind.ACTOR, "a").whenComplete((o, e) -> {
            try {
                rt.close();
                refused.complete(null);
            } catch (Throwable t) {
                refused.complete(t);
            }
        }).get(10, TimeUnit.SECONDS);
        Throwable t = refused.get(10, TimeUnit.SECONDS);
        if (t != null) { // it ran on the completion thread (not the caller's, when already done)
            assertEquals("WrongThread", ((ZlinkError) t).kind());
            assertEquals(1L, rt.ownedCount(), "still open");
        }
        rt.close();
        assertThrows(ZlinkClosedException.class, rt::ownedCount);
        assertTrue(Native.liveHandles() <= before);
    }

    @Test
    void anotherRuntimeMayBeClosedInsideACompletion() throws Exception {
        var a = ZlinkRuntime.builder(new NodeIdentity("main", 1)).build();
        var b = ZlinkRuntime.builder(new NodeIdentity("main", 2)).build();
        a.activateAsync(ObjectKind.ACTOR, "x").thenRun(b::close).get(10, TimeUnit.SECONDS);
        assertThrows(ZlinkClosedException.class, b::ownedCount);
        a.close();
    }

    @Test
    void aCallbackMayWaitForAnotherResolution() throws Exception {
        try (var store = new MemoryStore();
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                var rt = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
            owner.activate(ObjectKind.ACTOR, "x");
            owner.activate(ObjectKind.ACTOR, "y");
            Resolution nested = rt.resolveAsync(ObjectKind.ACTOR, "x")
                    .thenApply(r -> rt.resolveAsync(ObjectKind.ACTOR, "y").join())
                    .get(10, TimeUnit.SECONDS);
            assertInstanceOf(ReadyRoute.class, nested);
        }
    }

    /** A child JVM that uses the async forms and never closes its runtime. */
    public static final class Forgetful {
        public static void main(String[] args) throws Exception {
            var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).build();
            rt.resolveAsync(ObjectKind.ACTOR, "a").get();
            rt.activateAsync(ObjectKind.ACTOR, "b").get();
            System.out.println("main returns");
        }
    }

    @Test
    void aRuntimeLeftOpenDoesNotKeepTheJvmAlive() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                Forgetful.class.getName()).redirectErrorStream(true).start();
        boolean exited = p.waitFor(20, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!exited) {
            p.destroyForcibly();
        }
        assertTrue(exited, "the JVM exited: " + out);
        assertEquals(0, p.exitValue(), out);
    }

    @Test
    void invalidUnicodeIdsAreRefusedNotAliased() {
        try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).build()) {
            var e = assertThrows(ZlinkInputException.class, () -> rt.activate(ObjectKind.ACTOR, "user-\uD800"));
            assertEquals("InvalidUtf8", e.kind());
            assertThrows(ZlinkInputException.class, () -> ObjectKey.of(ObjectKind.ACTOR, "\uDC00"));
            assertEquals(0, rt.ownedCount());
        }
    }

    @Test
    void negativeDurationsAreRefused() {
        try (var clock = new ManualClock()) {
            var e = assertThrows(ZlinkInputException.class,
                    () -> new MemoryStore(clock, java.time.Duration.ofMillis(-5)));
            assertEquals("Negative", e.kind());
        }
        assertThrows(ZlinkInputException.class, () -> Wire.decode(new byte[] {1}, -5, -1, -1));
    }

    @Test
    void wireFramesCompareByValue() throws Exception {
        try (var store = new MemoryStore();
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                var rt = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
            owner.activate(ObjectKind.ACTOR, "a");
            byte[] frame = ((Submitted) rt.send(ObjectKind.ACTOR, "a", new byte[] {1})).outbound().bytes();
            assertEquals(Wire.decode(frame), Wire.decode(frame.clone()));
            assertEquals(Wire.decode(frame).hashCode(), Wire.decode(frame.clone()).hashCode());
        }
    }

    @Test
    void aRuntimeWithRaisedLimitsAnswersWhatItDelivered() {
        var big = RoutingConfig.builder().maxMessageBytes(4 << 20).maxObjectIdBytes(4096).build();
        try (var store = new MemoryStore();
                var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).config(big).store(store).build();
                var rt = ZlinkRuntime.builder(new NodeIdentity("main", 2)).config(big).store(store).build()) {
            String id = "x".repeat(2000);
            owner.activate(ObjectKind.ACTOR, id);
            var sent = (Submitted) rt.request(ObjectKind.ACTOR, id, new byte[2 << 20]);
            var d = assertInstanceOf(Deliver.class, owner.onFrame(2, sent.outbound().bytes()));
            Outbound back = owner.reply(d.operation(), new byte[] {7});
            assertInstanceOf(Completed.class, rt.onFrame(1, back.bytes()));
        }
    }
}
