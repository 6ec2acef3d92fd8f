package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A complete host loop, to copy: three nodes on one store, an in-memory network, an Actor that
 * moves from node 1 to node 2 while node 3 keeps sending to it. {@link Node} does with every
 * decision what a host must do, including the three duties the runtime cannot do for it, each
 * marked {@code DUTY} below:
 *
 * <ol>
 *   <li>{@code onFrame(fromNode, frame)}: {@code fromNode} is the routing ID of the node at the
 *       other end of the connection the frame arrived on (what the transport knows, never a value
 *       read from the frame). A wrong one is {@link ForeignSender}: the frame is refused.
 *   <li>Every {@link Relay} notice is carried to the original sender and settled with {@code
 *       noticeSettled(token, sent)}, sent or not. An unsettled notice blocks every later one for
 *       that sender and route: the sender keeps its stale route, each message detouring through
 *       the old owner until its cache expires.
 *   <li>{@code onTimeout()} runs whenever {@code nextDeadline()} is due, and at once after a
 *       {@link RelocationEvent.CommitDue}: the move's owner CAS is due now, and without the call
 *       the move never commits.
 * </ol>
 */
class HostLoopTest {
    /** A frame on the network: the node whose connection it travels on, the node it is for. */
    record Frame(long from, long to, byte[] bytes) {}

    private ManualClock clock;
    private MemoryStore store;
    private final Map<Long, Node> nodes = new LinkedHashMap<>();
    private final Deque<Frame> network = new ArrayDeque<>();
    /** How many command 50 notifications the network loses next (a transport failure). */
    private int loseNotices;
    /** Whether the nodes run their timers (a host that does not is what the last test shows). */
    private boolean timers = true;

    /** One MeshNode: its runtime, the Actors it runs (each a list of what it received), what it saw. */
    final class Node {
        final long rid;
        final ZlinkRuntime rt;
        final Map<String, List<String>> actors = new HashMap<>();
        final List<String> events = new ArrayList<>();

        Node(long rid) {
            this.rid = rid;
            this.rt = ZlinkRuntime.builder(new NodeIdentity("host", rid)).store(store).clock(clock).build();
        }

        /** The transport: carries a frame to its node; whether it was taken. */
        boolean carry(Outbound o) {
            if (loseNotices > 0 && o.bytes()[3] == 50) {
                loseNotices--;
                return false;
            }
            return network.add(new Frame(rid, o.to().rid(), o.bytes()));
        }

        /** A frame arrived on the connection from node {@code f.from()}. */
        void receive(Frame f) {
            // DUTY 1: the sender is the connection's peer (the transport's handshake told us which node).
            handle(rt.onFrame(f.from(), f.bytes()));
        }

        /** DUTY 3: runs every deadline due now. Called when nextDeadline() is due, and after CommitDue. */
        void tick() {
            for (Inbound d : rt.onTimeout()) {
                handle(d);
            }
        }

        /** Does what one decision says. Every case of Inbound a host meets here. */
        void handle(Inbound d) {
            if (d instanceof Deliver x) {
                deliver(x.operation());
            } else if (d instanceof Relay r) {
                events.add("Relay");
                carry(r.forward());
                // DUTY 2: the notice goes to the original sender and is settled, sent or not.
                r.notice().ifPresent(n -> rt.noticeSettled(n.token(), carry(n.outbound())));
            } else if (d instanceof Reject x) {
                carry(x.outbound());
            } else if (d instanceof Send x) {
                x.outbounds().forEach(this::carry);
            } else if (d instanceof Relocation r) {
                relocation(r);
            } else {
                // Completed, Ended, Late, RouteRefreshed, Held, Dropped, ForeignSender, ... : noted here.
                events.add(d.getClass().getSimpleName());
            }
        }

        /** An operation for a local Actor: it records the payload, and answers a request. */
        void deliver(Operation op) {
            List<String> actor = actors.get(op.id());
            assertTrue(actor != null, "node " + rid + " runs " + op.id());
            actor.add(new String(op.payload(), StandardCharsets.UTF_8));
            if (op.isRequest()) {
                carry(rt.reply(op, op.payload()));
            }
        }

        /** A step of a move: restore on the target, drop on the source, deliver and carry what it hands over. */
        void relocation(Relocation r) {
            RelocationEvent e = r.event();
            String id = e.identity().id();
            events.add("Relocation." + e.getClass().getSimpleName());
            if (e instanceof RelocationEvent.Restore x) {
                actors.put(id, new ArrayList<>(List.of(new String(x.state(), StandardCharsets.UTF_8).split("\n"))));
                rt.relocationRestored(ObjectKind.ACTOR, id).forEach(this::carry);
            } else if (e instanceof RelocationEvent.HandedOff || e instanceof RelocationEvent.Failed) {
                actors.remove(id);
            }
            r.deliver().forEach(x -> deliver(x.operation()));
            r.session().forEach(this::handle);
            r.send().forEach(this::carry);
            if (e instanceof RelocationEvent.CommitDue && timers) {
                // DUTY 3: the owner CAS is due now (nextDeadline() says so): run the timers now.
                assertTrue(rt.nextDeadline().orElseThrow() <= rt.now());
                tick();
            }
        }

        /** Activates an Actor here. */
        void activate(String id) {
            rt.activate(ObjectKind.ACTOR, id);
            actors.put(id, new ArrayList<>());
        }

        /** Sends a message to an Actor by global ID: the node the frame went to. */
        long send(String id, String payload) {
            SendResult r = rt.send(ObjectKind.ACTOR, id, payload.getBytes(StandardCharsets.UTF_8));
            Submitted s = assertInstanceOf(Submitted.class, r);
            assertTrue(carry(s.outbound()));
            return s.outbound().to().rid();
        }

        /** Starts moving Actor {@code id} to node {@code target}, its state with it. */
        void move(String id, long target) {
            byte[] state = String.join("\n", actors.get(id)).getBytes(StandardCharsets.UTF_8);
            rt.beginRelocation(ObjectKind.ACTOR, id, target, 1, List.of(), state).send().forEach(this::carry);
        }

        long stat(String name) {
            return rt.stats().get(name);
        }
    }

    @BeforeEach
    void start() {
        clock = new ManualClock();
        store = new MemoryStore(clock);
        for (long rid = 1; rid <= 3; rid++) {
            nodes.put(rid, new Node(rid));
        }
    }

    @AfterEach
    void stop() {
        nodes.values().forEach(n -> n.rt.close());
        store.close();
        clock.close();
    }

    /** The event loop of every node at once: carries frames and runs due timers until all is quiet. */
    private void settle() {
        while (true) {
            Frame f = network.poll();
            if (f != null) {
                nodes.get(f.to()).receive(f);
                continue;
            }
            boolean due = false;
            for (Node n : timers ? nodes.values() : List.<Node>of()) {
                if (n.rt.nextDeadline().isPresent() && n.rt.nextDeadline().getAsLong() <= n.rt.now()) {
                    n.tick();
                    due = true;
                }
            }
            if (!due && network.isEmpty()) {
                return;
            }
        }
    }

    @Test
    void aMovingActorIsFollowedAndTheSenderLearnsItsNewOwner() {
        Node owner = nodes.get(1L);
        Node target = nodes.get(2L);
        Node sender = nodes.get(3L);
        owner.activate("a");
        assertEquals(1, sender.send("a", "m1"));
        settle();
        assertEquals(List.of("m1"), owner.actors.get("a"));
        // The sender's near cache holds the route (a hit crosses no JNI).
        assertEquals(1, sender.rt.lookupCached(ObjectKind.ACTOR, "a").orElseThrow().node());
        long nearHits = sender.rt.nearHits();
        assertEquals(1, sender.rt.lookupCached(ObjectKind.ACTOR, "a").orElseThrow().node());
        assertEquals(nearHits + 1, sender.rt.nearHits());

        // The move: Restore, relay-ready, Cutover, CommitDue (the target runs its timers at once),
        // Committed; the source hands off.
        owner.move("a", 2);
        settle();
        assertTrue(target.events.containsAll(List.of("Relocation.Restore", "Relocation.CommitDue", "Relocation.Committed")),
                target.events.toString());
        assertTrue(owner.events.contains("Relocation.HandedOff"), owner.events.toString());
        assertFalse(owner.actors.containsKey("a"));
        assertEquals(List.of("m1"), target.actors.get("a"), "the state moved");

        // The sender's cached route still names node 1: Message Follow relays the message there
        // to node 2 and notifies the sender, whose next message goes to node 2 directly.
        assertEquals(1, sender.send("a", "m2"));
        settle();
        assertEquals(List.of("m1", "m2"), target.actors.get("a"));
        assertEquals(1, owner.stat("follow.relays"));
        assertEquals(1, owner.stat("follow.notifications_sent"));
        assertTrue(sender.events.contains("RouteRefreshed"), sender.events.toString());
        // The notice took the route to node 1 out of the core: the near cache no longer serves it.
        assertTrue(sender.rt.lookupCached(ObjectKind.ACTOR, "a").isEmpty(), "the stale route is not served near");
        assertEquals(nearHits + 1, sender.rt.nearHits());
        assertEquals(2, sender.send("a", "m3"));
        assertEquals(2, sender.rt.lookupCached(ObjectKind.ACTOR, "a").orElseThrow().node());
        assertEquals(2, sender.rt.lookupCached(ObjectKind.ACTOR, "a").orElseThrow().node());
        assertEquals(nearHits + 2, sender.rt.nearHits(), "the new route, served near");
        settle();
        assertEquals(List.of("m1", "m2", "m3"), target.actors.get("a"));
        assertEquals(1, owner.stat("follow.relays"), "no detour any more");
    }

    @Test
    void aNoticeTheTransportLostIsSettledAsNotSentAndSentAgainByTheNextRelay() {
        Node owner = nodes.get(1L);
        Node target = nodes.get(2L);
        Node sender = nodes.get(3L);
        owner.activate("a");
        sender.send("a", "m1");
        settle();
        owner.move("a", 2);
        settle();

        loseNotices = 1;
        assertEquals(1, sender.send("a", "m2"));
        settle();
        assertEquals(1, owner.stat("follow.notification_failures"), "settled: not sent");
        assertFalse(sender.events.contains("RouteRefreshed"));
        // Settled as not sent, the notice may go again: the next relay carries one, and it arrives.
        assertEquals(1, sender.send("a", "m3"));
        settle();
        assertEquals(2, owner.stat("follow.relays"));
        assertEquals(2, owner.stat("follow.notifications_sent"));
        assertTrue(sender.events.contains("RouteRefreshed"));
        assertEquals(2, sender.send("a", "m4"));
        settle();
        assertEquals(List.of("m1", "m2", "m3", "m4"), target.actors.get("a"));
    }

    @Test
    void aFrameGivenWithTheWrongSenderIsRefused() {
        Node owner = nodes.get(1L);
        Node sender = nodes.get(3L);
        owner.activate("a");
        sender.send("a", "m1");
        Frame f = network.poll();
        assertEquals(3, f.from());
        // Not the connection's peer: refused, nothing delivered.
        owner.handle(owner.rt.onFrame(2, f.bytes()));
        assertEquals(List.of("ForeignSender"), owner.events);
        assertEquals(List.of(), owner.actors.get("a"));
        // The connection's peer: delivered.
        owner.receive(f);
        assertEquals(List.of("m1"), owner.actors.get("a"));
    }

    @Test
    void withoutTheTimersAMoveNeverCommits() {
        Node owner = nodes.get(1L);
        Node target = nodes.get(2L);
        owner.activate("a");
        timers = false;
        owner.move("a", 2);
        settle();
        // The cutover arrived and the commit is due, but nobody ran it: the Actor runs nowhere.
        assertTrue(target.events.contains("Relocation.CommitDue"), target.events.toString());
        assertFalse(target.events.contains("Relocation.Committed"));
        assertFalse(owner.events.contains("Relocation.HandedOff"));
        assertTrue(target.rt.nextDeadline().orElseThrow() <= target.rt.now(), "due now");
        // One onTimeout() commits it.
        timers = true;
        target.tick();
        settle();
        assertTrue(target.events.contains("Relocation.Committed"), target.events.toString());
        assertTrue(owner.events.contains("Relocation.HandedOff"), owner.events.toString());
    }
}
