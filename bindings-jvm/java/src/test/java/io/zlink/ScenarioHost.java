package io.zlink;

import static io.zlink.ScenarioJson.bool;
import static io.zlink.ScenarioJson.fail;
import static io.zlink.ScenarioJson.integer;
import static io.zlink.ScenarioJson.text;
import static io.zlink.ScenarioJson.value;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * The small host a scenario runs in (testdata/scenarios/README.md): it owns the nodes, one
 * embedded store on one manual clock, and one network (a FIFO of frames), and does with every
 * decision what a host does. Everything that happened is kept in the {@link Ledger} the
 * expectations read.
 */
final class ScenarioHost implements AutoCloseable {
    /** One frame in flight, from the node that posted it to the node it is for. */
    record Envelope(long from, long to, byte[] bytes) {}

    /** Something a node decided, as the README's {@code events} name it. */
    record Event(long node, String tag) {
        @Override
        public String toString() {
            return "(" + node + ", " + tag + ")";
        }
    }

    /** An operation delivered at a node. */
    record Delivered(long op, long node) {}

    /** A one-way operation that ended without delivery. */
    record EndedOp(long op, Ended ended) {}

    /** A request's terminal result. */
    record CompletedOp(long op, Outcome outcome) {}

    /** Everything that happened, in the form the expectations read. */
    static final class Ledger {
        final List<Delivered> delivered = new ArrayList<>();
        final List<EndedOp> ended = new ArrayList<>();
        final List<CompletedOp> completed = new ArrayList<>();
        /** In the order they happened. */
        final List<Event> events = new ArrayList<>();
        long late;
        long dropped;
        long held;
        long refreshed;
        long invalidated;
    }

    /**
     * A command's number (the header's fourth byte) by its name in the wire vectors' JSON
     * (docs/wire.md).
     */
    static final Map<String, Integer> COMMANDS = Map.ofEntries(Map.entry("Message", 1),
            Map.entry("Request", 2), Map.entry("Reply", 3), Map.entry("Rejection", 4),
            Map.entry("SessionBind", 10), Map.entry("SessionBindReply", 11),
            Map.entry("SessionTombstone", 12), Map.entry("SessionTombstoneAck", 13),
            Map.entry("SessionRelay", 14), Map.entry("SessionPush", 15), Map.entry("SessionRefused", 16),
            Map.entry("SessionRelocationSeal", 42), Map.entry("SessionRelocationSealed", 43),
            Map.entry("SessionRelocationRoute", 44), Map.entry("RelocationRestore", 45),
            Map.entry("RelocationRelayReady", 46), Map.entry("RelocationCutover", 47),
            Map.entry("RelocationCommitted", 48), Map.entry("RelocationAbort", 49),
            Map.entry("MessageFollow", 50));

    /** A frame filter from a {@code rule} step: every field given must match. */
    record Matcher(Integer command, Long from, Long to) {
        /** The filter {@code v} describes; null for JSON null (the rule is cleared). */
        static Matcher fromJson(JsonElement v) {
            if (v == null || v.isJsonNull()) {
                return null;
            }
            JsonObject o = ScenarioJson.object(v);
            String name = text(o, "command");
            Integer command = null;
            if (name != null) {
                // A name the wire does not know would silently match nothing: a file mistake.
                command = COMMANDS.get(name);
                if (command == null) {
                    throw fail("unknown command '" + name + "' in a rule");
                }
            }
            return new Matcher(command, integer(o, "from"), integer(o, "to"));
        }

        boolean matches(Envelope e) {
            return (from == null || from == e.from())
                    && (to == null || to == e.to())
                    && (command == null || (e.bytes().length > 3 && (e.bytes()[3] & 0xFF) == command));
        }
    }

    /**
     * Where a Message or Request frame holds its target's object kind: after the 10-byte header
     * and the u64 operation ID (core/src/wire/codec.rs).
     */
    static final int KIND_AT = 10 + 8;

    /** What the host does with a {@code Restore}: relocation_restored, abort it, or nothing. */
    private static final Set<String> RESTORES = Set.of("ready", "fail", "ignore");

    final ManualClock clock;
    final MemoryStore store;
    final List<ZlinkRuntime> nodes = new ArrayList<>();
    final Deque<Envelope> network = new ArrayDeque<>();
    final List<Envelope> heldBack = new ArrayList<>();
    Matcher dropRule;
    Matcher holdRule;
    /** Frames matching these are corrupted as they are carried. */
    Matcher truncateRule;
    Matcher corruptKindRule;
    /** Operation names ("as") to operation IDs. */
    final Map<String, Long> names = new TreeMap<>();
    /** The Sessions opened, by "node/session": what a push names. */
    final Map<String, SessionRef> sessions = new HashMap<>();
    /** Request names to their correlations (for {@code cancel}). */
    final Map<String, Long> requests = new TreeMap<>();
    private boolean reply = true;
    private String restore = "ready";
    final Ledger ledger = new Ledger();

    /**
     * Starts the scenario's nodes: node {@code n} has routing ID n, node generation 1, owner
     * lease generation n, mesh "scenario"; all share one store and one manual clock at 0.
     */
    ScenarioHost(JsonObject scenario) {
        clock = new ManualClock();
        store = new MemoryStore(clock);
        try {
            RoutingConfig config;
            try {
                config = ScenarioJson.config(ScenarioJson.object(scenario, "config"));
            } catch (ZlinkConfigException e) {
                throw new ScenarioFailure("the nodes do not start: " + e.getClass().getSimpleName() + " "
                        + e.kind() + ": " + e.getMessage(), e);
            }
            Long n = value(scenario, "nodes") == null ? Long.valueOf(2) : integer(scenario, "nodes");
            if (n == null) {
                throw fail("'nodes' is " + scenario.get("nodes") + ", not a count");
            }
            for (long rid = 1; rid <= n; rid++) {
                try {
                    nodes.add(ZlinkRuntime.builder(new NodeIdentity("scenario", rid, 1, rid))
                            .store(store).clock(clock).config(config).build());
                } catch (RuntimeException e) {
                    if (e instanceof ZlinkError) {
                        throw new ScenarioFailure("node " + rid + " does not start: " + e.getMessage(), e);
                    }
                    throw e;
                }
            }
            JsonObject h = ScenarioJson.object(scenario, "host");
            if (h != null) {
                host(h);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Changes the host's behaviour (the scenario's {@code host}, or a {@code host} step). */
    void host(JsonObject h) {
        Boolean r = bool(h, "reply");
        if (r != null) {
            reply = r;
        }
        String s = text(h, "restore");
        if (s != null) {
            if (!RESTORES.contains(s)) {
                throw fail("unknown host restore '" + s + "'");
            }
            restore = s;
        }
    }

    @Override
    public void close() {
        for (ZlinkRuntime node : nodes) {
            node.close();
        }
        store.close();
        clock.close();
    }

    ZlinkRuntime node(long rid) {
        if (rid < 1 || rid > nodes.size()) {
            throw fail("no node " + rid);
        }
        return nodes.get((int) rid - 1);
    }

    /** An operation's name for a message (its "as", else "#id"). */
    String nameOf(long op) {
        for (Map.Entry<String, Long> e : names.entrySet()) {
            if (e.getValue() == op) {
                return e.getKey();
            }
        }
        return "#" + op;
    }

    /** The operation named {@code name} by an earlier step. */
    long op(String name) {
        Long op = names.get(name);
        if (op == null) {
            throw fail("no operation named '" + name + "'");
        }
        return op;
    }

    // ---- the host ----------------------------------------------------------

    /** Puts a frame of node {@code from} on the network, unless a rule drops or holds it. */
    void post(long from, Outbound out) {
        // A frame names the node that made it and its command.
        if (out.sender().rid() != from) {
            throw new AssertionError("a frame of node " + from + " names " + out.sender() + " as its sender");
        }
        if (COMMANDS.get(out.command().wireName()) != Byte.toUnsignedInt(out.bytes()[3])) {
            throw new AssertionError("command " + out.command() + " on a frame of command " + out.bytes()[3]);
        }
        Envelope e = new Envelope(from, out.to().rid(), out.bytes());
        if (dropRule != null && dropRule.matches(e)) {
            ledger.dropped++;
        } else if (holdRule != null && holdRule.matches(e)) {
            heldBack.add(e);
        } else {
            network.addLast(e);
        }
    }

    void postAll(long from, List<Outbound> frames) {
        for (Outbound f : frames) {
            post(from, f);
        }
    }

    private void event(long at, String tag) {
        ledger.events.add(new Event(at, tag));
    }

    /** Records a delivery at {@code at}; answers a request with "re:" + payload if the host replies. */
    private void deliver(long at, Deliver d) {
        Operation operation = d.operation();
        ledger.delivered.add(new Delivered(operation.operationId(), at));
        if (reply && operation.isRequest()) {
            byte[] payload = operation.payload();
            byte[] answer = new byte[3 + payload.length];
            System.arraycopy("re:".getBytes(StandardCharsets.UTF_8), 0, answer, 0, 3);
            System.arraycopy(payload, 0, answer, 3, payload.length);
            Outbound out;
            try {
                out = node(at).reply(operation, answer);
            } catch (RuntimeException e) {
                throw new ScenarioFailure("reply: " + described(e), e);
            }
            post(at, out);
        }
    }

    /** An exception as the failure messages show it: its class, kind and message. */
    static String described(RuntimeException e) {
        String kind = e instanceof ZlinkError z ? " " + z.kind() : "";
        return e.getClass().getSimpleName() + kind + ": " + e.getMessage();
    }

    /** What a host does with one decision of node {@code at}. */
    void act(long at, Inbound action) {
        if (action instanceof Deliver d) {
            deliver(at, d);
        } else if (action instanceof Relay r) {
            post(at, r.forward());
            // The notice goes to the original sender; a host reports that it was sent.
            if (r.notice().isPresent()) {
                Notice n = r.notice().get();
                post(at, n.outbound());
                node(at).noticeSettled(n.token(), true);
            }
        } else if (action instanceof Reject r) {
            post(at, r.outbound());
        } else if (action instanceof Send s) {
            postAll(at, s.outbounds());
        } else if (action instanceof Ended e) {
            ledger.ended.add(new EndedOp(e.operationId(), e));
        } else if (action instanceof Completed c) {
            ledger.completed.add(new CompletedOp(c.completion().operationId(), c.completion().outcome()));
        } else if (action instanceof Late) {
            ledger.late++;
            event(at, "Late");
        } else if (action instanceof RouteRefreshed r) {
            ledger.refreshed++;
            ledger.invalidated += r.invalidated() ? 1 : 0;
            event(at, "RouteRefreshed");
        } else if (action instanceof Dropped) {
            ledger.dropped++;
            event(at, "Dropped");
        } else if (action instanceof PeerRefused) {
            event(at, "PeerRefused");
        } else if (action instanceof ForeignSender) {
            event(at, "ForeignSender");
        } else if (action instanceof Held) {
            ledger.held++;
            event(at, "Held");
        } else if (action instanceof SessionDeliver) {
            event(at, "SessionDeliver");
        } else if (action instanceof Relocation r) {
            relocation(at, r);
        } else {
            String session = sessionEvent(action);
            if (session == null) {
                throw fail("node " + at + " decided " + action + ", which this host does not know");
            }
            event(at, "Session." + session);
        }
    }

    /** A session decision's README name (the core's SessionEvent variant), or null. */
    private static String sessionEvent(Inbound action) {
        if (action instanceof Bound) {
            return "Bound";
        } else if (action instanceof BindRefused) {
            return "BindRefused";
        } else if (action instanceof Pushed) {
            return "Pushed";
        } else if (action instanceof RelayRefused) {
            return "RelayRefused";
        } else if (action instanceof Sealed) {
            return "Sealed";
        } else if (action instanceof SessionClosed) {
            return "Closed";
        } else if (action instanceof Ignored) {
            return "Ignored";
        }
        return null;
    }

    /** A relocation event's README name ({@code Relocation.<Event>}). */
    private static String relocationEvent(RelocationEvent e) {
        if (e instanceof RelocationEvent.Restore) {
            return "Restore";
        } else if (e instanceof RelocationEvent.Cutover) {
            return "Cutover";
        } else if (e instanceof RelocationEvent.CommitDue) {
            return "CommitDue";
        } else if (e instanceof RelocationEvent.Committed) {
            return "Committed";
        } else if (e instanceof RelocationEvent.HandedOff) {
            return "HandedOff";
        } else if (e instanceof RelocationEvent.Aborting) {
            return "Aborting";
        } else if (e instanceof RelocationEvent.Aborted) {
            return "Aborted";
        } else if (e instanceof RelocationEvent.Failed) {
            return "Failed";
        } else if (e instanceof RelocationEvent.CommitRetry) {
            return "CommitRetry";
        } else if (e instanceof RelocationEvent.Ignored) {
            return "Ignored";
        }
        throw fail("unknown relocation event " + e);
    }

    /**
     * A relocation step: its deliveries and session relays first (in order), then its frames,
     * then the event; a {@code Restore} is answered as {@code host.restore} says.
     */
    void relocation(long at, Relocation a) {
        for (Deliver d : a.deliver()) {
            deliver(at, d);
        }
        for (int i = 0; i < a.session().size(); i++) {
            event(at, "SessionDeliver");
        }
        postAll(at, a.send());
        event(at, "Relocation." + relocationEvent(a.event()));
        if (a.event() instanceof RelocationEvent.Restore r) {
            RelocationIdentity ident = r.identity();
            if (restore.equals("ready")) {
                List<Outbound> frames;
                try {
                    frames = node(at).relocationRestored(ident.kind(), ident.id());
                } catch (RuntimeException e) {
                    throw new ScenarioFailure("relocation_restored: " + described(e), e);
                }
                postAll(at, frames);
            } else if (restore.equals("fail")) {
                Relocation aborted;
                try {
                    aborted = node(at).abortRelocation(ident.kind(), ident.id());
                } catch (RuntimeException e) {
                    throw new ScenarioFailure("abort_relocation: " + described(e), e);
                }
                relocation(at, aborted);
            }
        }
    }

    /** Runs node {@code at}'s timers if they are due, as a host's loop does. */
    void due(long at) {
        ZlinkRuntime node = node(at);
        long now = node.now();
        OptionalLong deadline = node.nextDeadline();
        if (deadline.isPresent() && deadline.getAsLong() <= now) {
            for (Inbound action : node.onTimeout(now)) {
                act(at, action);
            }
        }
    }

    /**
     * The corruption rules: a frame matching {@code truncate} loses its last byte, one matching
     * {@code corrupt_kind} gets 0xEE at its target's object kind.
     */
    private Envelope corrupt(Envelope e) {
        byte[] bytes = e.bytes();
        if (truncateRule != null && truncateRule.matches(e) && bytes.length > 0) {
            bytes = Arrays.copyOf(bytes, bytes.length - 1);
        }
        if (corruptKindRule != null && corruptKindRule.matches(e) && bytes.length > KIND_AT) {
            bytes = bytes.clone();
            bytes[KIND_AT] = (byte) 0xEE;
        }
        return bytes == e.bytes() ? e : new Envelope(e.from(), e.to(), bytes);
    }

    /** Hands the first frame in flight to its node: false when none is in flight. */
    boolean stepFrame() {
        Envelope e = network.pollFirst();
        if (e == null) {
            return false;
        }
        e = corrupt(e);
        Inbound action = node(e.to()).onFrame(e.from(), e.bytes());
        act(e.to(), action);
        due(e.to());
        return true;
    }
}
