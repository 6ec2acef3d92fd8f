package io.zlink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MessagingTest {
    private ManualClock clock;
    private MemoryStore store;
    private ZlinkRuntime owner;
    private ZlinkRuntime sender;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @BeforeEach
    void start() {
        clock = new ManualClock();
        store = new MemoryStore(clock);
        owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).clock(clock).build();
        sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).clock(clock).build();
        owner.activate(ObjectKind.ACTOR, "a");
    }

    @AfterEach
    void stop() {
        sender.close();
        owner.close();
        store.close();
        clock.close();
    }

    /** Carries a submitted frame to the owner. */
    private Inbound carry(SendResult sent) {
        Submitted s = assertInstanceOf(Submitted.class, sent);
        assertEquals(1, s.outbound().to().rid());
        return owner.onFrame(2, s.outbound().bytes());
    }

    @Test
    void aMessageIsDeliveredOnceToTheOwner() {
        SendResult sent = sender.send(ObjectKind.ACTOR, "a", utf8("hi"));
        Deliver d = assertInstanceOf(Deliver.class, carry(sent));
        assertArrayEquals(utf8("hi"), d.operation().payload());
        assertEquals("a", d.operation().id());
        assertEquals(ObjectKind.ACTOR, d.operation().kind());
        assertTrue(!d.operation().isRequest());
        assertEquals(((Submitted) sent).operationId(), d.operation().operationId());
        assertTrue(((Submitted) sent).correlation().isEmpty());
    }

    @Test
    void aRequestGetsItsReply() {
        SendResult sent = sender.request(ObjectKind.ACTOR, "a", utf8("ping"));
        long correlation = ((Submitted) sent).correlation().orElseThrow();
        assertEquals(1, sender.pendingRequests());
        Deliver d = assertInstanceOf(Deliver.class, carry(sent));
        assertTrue(d.operation().isRequest());
        Outbound back = owner.reply(d.operation(), utf8("pong"));
        assertEquals(2, back.to().rid());
        Completed done = assertInstanceOf(Completed.class, sender.onFrame(1, back.bytes()));
        assertEquals(correlation, done.completion().correlation());
        assertEquals(new Outcome.Reply(utf8("pong")), done.completion().outcome());
        assertEquals(0, sender.pendingRequests());
        // A second answer is late.
        assertInstanceOf(Late.class, sender.onFrame(1, back.bytes()));
    }

    @Test
    void anErrorReplyCarriesItsKindCodeAndMessage() {
        Deliver d = (Deliver) carry(sender.request(ObjectKind.ACTOR, "a", utf8("ping")));
        Outbound back = owner.replyError(d.operation(), "Handler", 7, "no such thing");
        Completed done = (Completed) sender.onFrame(1, back.bytes());
        assertEquals(new Outcome.Error("Handler", java.util.Optional.empty(), 7, "no such thing"),
                done.completion().outcome());
        var bad = assertThrows(ZlinkInputException.class, () -> owner.replyError(d.operation(), "Other", 1, ""));
        assertEquals("UnknownErrorKind", bad.kind());
    }

    @Test
    void aOneWayMessageHasNoReplyRoute() {
        Deliver d = (Deliver) carry(sender.send(ObjectKind.ACTOR, "a", utf8("hi")));
        var e = assertThrows(ReplyRouteException.class, () -> owner.reply(d.operation(), utf8("x")));
        assertEquals("OneWay", e.kind());
    }

    @Test
    void requestsEndByTimeoutCancelOrShutdown() {
        var options = SendOptions.DEFAULT.withTimeoutMs(1_000);
        long timed = ((Submitted) sender.request(ObjectKind.ACTOR, "a", utf8("1"), options)).correlation().orElseThrow();
        long cancelled = ((Submitted) sender.request(ObjectKind.ACTOR, "a", utf8("2"))).correlation().orElseThrow();
        long shut = ((Submitted) sender.request(ObjectKind.ACTOR, "a", utf8("3"))).correlation().orElseThrow();
        assertTrue(sender.nextDeadline().isPresent());
        clock.advance(1_001);
        var due = sender.onTimeout();
        assertEquals(1, due.size());
        Completion t = ((Completed) due.get(0)).completion();
        assertEquals(timed, t.correlation());
        assertEquals(new Outcome.Timeout(), t.outcome());
        assertEquals(new Outcome.Cancelled(), sender.cancel(cancelled).orElseThrow().outcome());
        assertTrue(sender.cancel(cancelled).isEmpty(), "a late cancel finds nothing");
        var rest = sender.shutdownRequests();
        assertEquals(1, rest.size());
        assertEquals(shut, rest.get(0).correlation());
        assertEquals(new Outcome.Shutdown(), rest.get(0).outcome());
    }

    @Test
    void anOriginSpotIsNamedInTheCompletion() {
        var spot = owner.activate(ObjectKind.SPOT, "caller");
        var options = SendOptions.DEFAULT.withOrigin(new SpotExecution("caller", spot.objectGeneration()));
        long c = ((Submitted) sender.request(ObjectKind.ACTOR, "a", utf8("x"), options)).correlation().orElseThrow();
        Completion done = sender.cancel(c).orElseThrow();
        assertEquals(new SpotExecution("caller", spot.objectGeneration()), done.origin().orElseThrow());
    }

    @Test
    void badFramesAreDroppedNotThrown() {
        Dropped d = assertInstanceOf(Dropped.class, owner.onFrame(2, new byte[] {1, 2, 3}));
        assertNotEquals("", d.kind());
        Deliver real = (Deliver) carry(sender.request(ObjectKind.ACTOR, "a", utf8("x")));
        assertEquals(real, real);
    }

    @Test
    void missingAndUnknownTargetsAreResults() {
        assertEquals(NotFound.INSTANCE, sender.send(ObjectKind.ACTOR, "nobody", utf8("x")));
        owner.create(ObjectKind.ACTOR, "young");
        assertEquals(new Unavailable(UnavailableReason.CREATING), sender.send(ObjectKind.ACTOR, "young", utf8("x")));
        var big = new byte[(int) sender.config().maxMessageBytes() + 1];
        var e = assertThrows(ZlinkInputException.class, () -> sender.send(ObjectKind.ACTOR, "a", big));
        assertEquals("PayloadTooLarge", e.kind());
        var zero = assertThrows(ZlinkInputException.class,
                () -> sender.send(ObjectKind.ACTOR, "a", utf8("x"), SendOptions.DEFAULT.withDeadlineMs(0)));
        assertEquals("ZeroDeadline", zero.kind());
    }

    @Test
    void asyncFormsCompleteWithTheResultOrTheException() throws Exception {
        var sent = sender.sendAsync(ObjectKind.ACTOR, "a", utf8("hi"), SendOptions.DEFAULT);
        assertInstanceOf(Submitted.class, sent.get(10, TimeUnit.SECONDS));
        var made = owner.activateAsync(ObjectKind.ACTOR, "b").get(10, TimeUnit.SECONDS);
        assertEquals(AuthorityState.READY, made.state());
        var failed = owner.activateAsync(ObjectKind.ACTOR, "a");
        var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> failed.get(10, TimeUnit.SECONDS));
        assertInstanceOf(LifecycleException.class, e.getCause());
    }
}
