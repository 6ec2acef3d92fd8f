package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The {@code ...Async} forms refuse bad input at the call, as their blocking forms do (same
 * exception, kind and message), and keep only the runtime's own outcomes for the future. Each
 * input the Java API once checked itself (before the library did) has a case here: object IDs
 * (and {@code ObjectKeyTest}), the payload bound, durations, a zero deadline and timeout, instance
 * intent on an Actor, peer fields, the frame bound, a negative {@code now}.
 */
class AsyncInputTest {
    /** An async call: its future (the call itself may throw). */
    @FunctionalInterface
    interface AsyncCall {
        CompletableFuture<?> call();
    }

    /** A bad input given to a blocking call and to its async form. */
    record Case(String name, Executable sync, AsyncCall async) {}

    private MemoryStore store;
    private ZlinkRuntime rt;
    private final List<Case> cases = new ArrayList<>();

    @BeforeEach
    void start() {
        store = new MemoryStore();
        var config = RoutingConfig.builder().maxMessageBytes(8).maxObjectIdBytes(16).build();
        rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).config(config).build();
    }

    @AfterEach
    void stop() {
        rt.close();
        store.close();
    }

    private void add(String name, Executable sync, AsyncCall async) {
        cases.add(new Case(name, sync, async));
    }

    /** Every case throws at the async call what the blocking call throws. */
    private void checkAll() {
        assertTrue(cases.size() > 0);
        for (Case c : cases) {
            Throwable expected = assertThrows(Throwable.class, c.sync(), c.name() + " (blocking)");
            assertTrue(expected instanceof NullPointerException || expected instanceof ZlinkInputException,
                    c.name() + ": " + expected);
            CompletableFuture<?> future;
            try {
                future = c.async().call();
            } catch (Throwable got) {
                assertEquals(expected.getClass(), got.getClass(), c.name());
                assertEquals(expected.getMessage(), got.getMessage(), c.name());
                if (expected instanceof ZlinkError e) {
                    assertEquals(e.kind(), ((ZlinkError) got).kind(), c.name());
                }
                continue;
            }
            fail(c.name() + ": the async form returned a future (" + future + ") for " + expected);
        }
    }

    private static final String LONG_ID = "x".repeat(17); // over the config's 16-byte cap
    private static final String HUGE_ID = "x".repeat(70_000); // over any cap (65,535)
    private static final String LONE_SURROGATE = "\ud800";
    /** The bridge's frame bound: the largest payload (1 GiB) plus 1 MiB of headers. */
    private static final long MAX_FRAME_BYTES = (1L << 30) + (1L << 20);

    @Test
    void sendAndRequestRefuseBadInputAtTheCall() {
        byte[] ok = new byte[8];
        byte[] big = new byte[9];
        var actor = ObjectKind.ACTOR;
        var spot = ObjectKind.SPOT;
        var d = SendOptions.DEFAULT;
        for (boolean request : new boolean[] {false, true}) {
            String op = request ? "request" : "send";
            Sync4 sync = request ? rt::request : rt::send;
            Async4 async = request ? rt::requestAsync : rt::sendAsync;
            add(op + " null kind", () -> sync.call(null, "a", ok, d), () -> async.call(null, "a", ok, d));
            add(op + " null id", () -> sync.call(actor, null, ok, d), () -> async.call(actor, null, ok, d));
            add(op + " null payload", () -> sync.call(actor, "a", null, d), () -> async.call(actor, "a", null, d));
            add(op + " null options", () -> sync.call(actor, "a", ok, null), () -> async.call(actor, "a", ok, null));
            for (String id : new String[] {"", LONG_ID, HUGE_ID, LONE_SURROGATE}) {
                add(op + " id of " + id.length(), () -> sync.call(actor, id, ok, d), () -> async.call(actor, id, ok, d));
            }
            add(op + " payload over the bound", () -> sync.call(actor, "a", big, d),
                    () -> async.call(actor, "a", big, d));
            for (long ms : new long[] {0, -2}) {
                var o = d.withDeadlineMs(ms);
                add(op + " deadline " + ms, () -> sync.call(spot, "s", ok, o), () -> async.call(spot, "s", ok, o));
            }
            var intent = d.withInstanceIntent(true);
            add(op + " instance intent on an actor", () -> sync.call(actor, "a", ok, intent),
                    () -> async.call(actor, "a", ok, intent));
            // Two faults: the runtime's order decides which one is reported: the bridge's checks
            // (durations, the ID's global cap), then the core's (the payload bound, a zero
            // deadline, intent, the ID's runtime cap), all run by the library at the call.
            var both = d.withDeadlineMs(0).withInstanceIntent(true);
            add(op + " two faults", () -> sync.call(actor, "", big, both), () -> async.call(actor, "", big, both));
            add(op + " huge id, big payload", () -> sync.call(actor, HUGE_ID, big, d),
                    () -> async.call(actor, HUGE_ID, big, d));
            var negative = d.withDeadlineMs(-2);
            add(op + " negative deadline, big payload", () -> sync.call(actor, "a", big, negative),
                    () -> async.call(actor, "a", big, negative));
            add(op + " negative deadline, huge id", () -> sync.call(actor, HUGE_ID, ok, negative),
                    () -> async.call(actor, HUGE_ID, ok, negative));
            add(op + " long id, intent", () -> sync.call(actor, LONG_ID, ok, intent),
                    () -> async.call(actor, LONG_ID, ok, intent));
            var zero = d.withDeadlineMs(0);
            add(op + " long id, zero deadline", () -> sync.call(spot, LONG_ID, ok, zero),
                    () -> async.call(spot, LONG_ID, ok, zero));
            // The three-argument forms.
            Sync3 sync3 = request ? rt::request : rt::send;
            Async3 async3 = request ? rt::requestAsync : rt::sendAsync;
            add(op + "(3) empty id", () -> sync3.call(actor, "", ok), () -> async3.call(actor, "", ok));
            add(op + "(3) payload over the bound", () -> sync3.call(actor, "a", big), () -> async3.call(actor, "a", big));
        }
        for (long ms : new long[] {0, -2}) {
            var o = SendOptions.DEFAULT.withTimeoutMs(ms);
            add("request timeout " + ms, () -> rt.request(actor, "a", ok, o), () -> rt.requestAsync(actor, "a", ok, o));
        }
        for (String origin : new String[] {"", HUGE_ID, LONE_SURROGATE}) {
            var o = SendOptions.DEFAULT.withOrigin(new SpotExecution(origin, 1));
            add("request origin of " + origin.length(), () -> rt.request(actor, "a", ok, o),
                    () -> rt.requestAsync(actor, "a", ok, o));
            add("request origin of " + origin.length() + ", big payload", () -> rt.request(actor, "a", big, o),
                    () -> rt.requestAsync(actor, "a", big, o));
        }
        var zeroTimeout = SendOptions.DEFAULT.withTimeoutMs(0);
        add("request zero timeout, long id", () -> rt.request(actor, LONG_ID, ok, zeroTimeout),
                () -> rt.requestAsync(actor, LONG_ID, ok, zeroTimeout));
        var negativeTimeout = SendOptions.DEFAULT.withTimeoutMs(-2).withDeadlineMs(0);
        add("request negative timeout, zero deadline", () -> rt.request(actor, "a", big, negativeTimeout),
                () -> rt.requestAsync(actor, "a", big, negativeTimeout));
        checkAll();
    }

    @FunctionalInterface
    interface Sync4 {
        SendResult call(ObjectKind kind, String id, byte[] payload, SendOptions options);
    }

    @FunctionalInterface
    interface Async4 {
        CompletableFuture<SendResult> call(ObjectKind kind, String id, byte[] payload, SendOptions options);
    }

    @FunctionalInterface
    interface Sync3 {
        SendResult call(ObjectKind kind, String id, byte[] payload);
    }

    @FunctionalInterface
    interface Async3 {
        CompletableFuture<SendResult> call(ObjectKind kind, String id, byte[] payload);
    }

    @FunctionalInterface
    interface SyncId {
        Object call(ObjectKind kind, String id);
    }

    @FunctionalInterface
    interface AsyncId {
        CompletableFuture<?> call(ObjectKind kind, String id);
    }

    @Test
    void resolutionAndLifecycleWritesRefuseBadIdsAtTheCall() {
        List<Object[]> forms = List.of(
                new Object[] {"resolve", (SyncId) rt::resolve, (AsyncId) rt::resolveAsync},
                new Object[] {"create", (SyncId) rt::create, (AsyncId) rt::createAsync},
                new Object[] {"publishReady", (SyncId) rt::publishReady, (AsyncId) rt::publishReadyAsync},
                new Object[] {"activate", (SyncId) rt::activate, (AsyncId) rt::activateAsync},
                new Object[] {"renewLease", (SyncId) rt::renewLease, (AsyncId) rt::renewLeaseAsync},
                new Object[] {"beginRelease", (SyncId) rt::beginRelease, (AsyncId) rt::beginReleaseAsync},
                new Object[] {"completeRelease", (SyncId) (k, i) -> {
                    rt.completeRelease(k, i);
                    return null;
                }, (AsyncId) rt::completeReleaseAsync});
        for (Object[] f : forms) {
            String name = (String) f[0];
            SyncId sync = (SyncId) f[1];
            AsyncId async = (AsyncId) f[2];
            add(name + " null kind", () -> sync.call(null, "a"), () -> async.call(null, "a"));
            add(name + " null id", () -> sync.call(ObjectKind.ACTOR, null), () -> async.call(ObjectKind.ACTOR, null));
            for (String id : new String[] {"", LONG_ID, HUGE_ID, LONE_SURROGATE}) {
                add(name + " id of " + id.length(), () -> sync.call(ObjectKind.SPOT, id),
                        () -> async.call(ObjectKind.SPOT, id));
            }
        }
        add("resolve(ObjectKey) null", () -> rt.resolve((ObjectKey) null), () -> rt.resolveAsync((ObjectKey) null));
        checkAll();
    }

    @Test
    void framesTimersAndPeersRefuseBadInputAtTheCall() {
        add("onFrame null frame", () -> rt.onFrame(2, null), () -> rt.onFrameAsync(2, null));
        add("onPeerFrame null frame", () -> rt.onPeerFrame("ep:1", null), () -> rt.onPeerFrameAsync("ep:1", null));
        add("onPeerFrame null endpoint", () -> rt.onPeerFrame(null, new byte[1]),
                () -> rt.onPeerFrameAsync(null, new byte[1]));
        add("onTimeout negative", () -> rt.onTimeout(-1), () -> rt.onTimeoutAsync(-1));
        add("onTimeout most negative", () -> rt.onTimeout(Long.MIN_VALUE), () -> rt.onTimeoutAsync(Long.MIN_VALUE));
        String tooLong = "e".repeat(1025);
        for (String[] args : new String[][] {{"", "me"}, {tooLong, "me"}, {"ep:1", ""}, {"ep:1", tooLong},
                {null, "me"}, {"ep:1", null}, {"", null}}) {
            add("publishDescriptor " + (args[0] == null ? null : args[0].length()) + "/"
                    + (args[1] == null ? null : args[1].length()),
                    () -> rt.publishDescriptor(args[0], args[1]), () -> rt.publishDescriptorAsync(args[0], args[1]));
        }
        for (String endpoint : new String[] {"", tooLong, null}) {
            add("ensureManualPeer " + endpoint, () -> rt.ensureManualPeer(endpoint),
                    () -> rt.ensureManualPeerAsync(endpoint));
        }
        checkAll();
        assertEquals("BadPeerField", assertThrows(ZlinkInputException.class,
                () -> rt.publishDescriptorAsync("ep:1", "")).kind());
        assertEquals("Negative", assertThrows(ZlinkInputException.class, () -> rt.onTimeout(-1)).kind());
    }

    @Test
    void anOverLongFrameThrowsAtTheCall() {
        // One byte over the bridge's frame bound (1 GiB + 1 MiB): a 1 GiB array, and the blocking
        // forms copy it to the library once each before refusing it.
        assumeTrue(Runtime.getRuntime().maxMemory() > (3L << 30), "a heap of more than 3 GiB");
        byte[] frame = new byte[Math.toIntExact(MAX_FRAME_BYTES + 1)];
        add("onFrame over-long frame", () -> rt.onFrame(2, frame), () -> rt.onFrameAsync(2, frame));
        add("onPeerFrame over-long frame", () -> rt.onPeerFrame("ep:1", frame),
                () -> rt.onPeerFrameAsync("ep:1", frame));
        checkAll();
        assertEquals("FrameTooLong", assertThrows(ZlinkInputException.class, () -> rt.onFrameAsync(2, frame)).kind());
    }

    @Test
    void theFutureCarriesOnlyTheRuntimesOwnOutcomes() throws Exception {
        // Good input: the results.
        assertInstanceOf(ReadyRoute.class, rt.activateAsync(ObjectKind.ACTOR, "a")
                .thenCompose(o -> rt.resolveAsync(ObjectKind.ACTOR, "a")).get(10, TimeUnit.SECONDS));
        assertInstanceOf(Submitted.class, rt.sendAsync(ObjectKind.ACTOR, "a", new byte[8]).get(10, TimeUnit.SECONDS));
        assertInstanceOf(Submitted.class, rt.requestAsync(ObjectKind.ACTOR, "a", new byte[8]).get(10, TimeUnit.SECONDS));
        assertEquals(NotFound.INSTANCE, rt.sendAsync(ObjectKind.ACTOR, "nobody", new byte[1]).get(10, TimeUnit.SECONDS));
        assertInstanceOf(Dropped.class, rt.onFrameAsync(2, new byte[] {1, 2, 3}).get(10, TimeUnit.SECONDS));
        assertEquals(rt.onPeerFrame("ep:9", new byte[] {1, 2, 3}),
                rt.onPeerFrameAsync("ep:9", new byte[] {1, 2, 3}).get(10, TimeUnit.SECONDS));
        assertEquals(List.of(), rt.onTimeoutAsync(0).get(10, TimeUnit.SECONDS));
        var published = rt.publishDescriptorAsync("ep:1", "me").get(10, TimeUnit.SECONDS);
        assertEquals(new PeerDescriptor("ep:1", 1, published.lifecycleGeneration(), "me"), published);
        assertTrue(rt.ensureManualPeerAsync("ep:2").get(10, TimeUnit.SECONDS).isEmpty(), "no descriptor for ep:2");
        rt.activate(ObjectKind.SPOT, "gone");
        rt.beginReleaseAsync(ObjectKind.SPOT, "gone").get(10, TimeUnit.SECONDS);
        assertNull(rt.completeReleaseAsync(ObjectKind.SPOT, "gone").get(10, TimeUnit.SECONDS));
        assertEquals(Missing.INSTANCE, rt.resolve(ObjectKind.SPOT, "gone"));
        // The runtime's refusal of the work itself: in the future.
        var again = rt.activateAsync(ObjectKind.ACTOR, "a");
        var e = assertThrows(ExecutionException.class, () -> again.get(10, TimeUnit.SECONDS));
        assertInstanceOf(LifecycleException.class, e.getCause());
        // As the blocking call throws it, not wrapped: what handle() and exceptionally() see.
        assertInstanceOf(LifecycleException.class, again.handle((v, t) -> t).get(10, TimeUnit.SECONDS));
        var notOwned = rt.renewLeaseAsync(ObjectKind.ACTOR, "nobody");
        var n = assertThrows(ExecutionException.class, () -> notOwned.get(10, TimeUnit.SECONDS));
        assertInstanceOf(LifecycleException.class, n.getCause());
        // A closed runtime: every call throws, the async forms at the call.
        rt.close();
        assertThrows(ZlinkClosedException.class, () -> rt.resolveAsync(ObjectKind.ACTOR, "a"));
        assertThrows(ZlinkClosedException.class, () -> rt.sendAsync(ObjectKind.ACTOR, "a", new byte[1]));
        assertThrows(ZlinkClosedException.class, () -> rt.activateAsync(ObjectKind.ACTOR, "b"));
        assertThrows(ZlinkClosedException.class, () -> rt.onTimeoutAsync());
        assertThrows(ZlinkClosedException.class, () -> rt.onFrameAsync(2, new byte[1]));
        assertThrows(ZlinkClosedException.class, () -> rt.onPeerFrameAsync("ep:1", new byte[1]));
        assertThrows(ZlinkClosedException.class, () -> rt.connectManualPeersAsync());
    }
}
