package io.zlink;

import static io.zlink.ScenarioJson.array;
import static io.zlink.ScenarioJson.expectField;
import static io.zlink.ScenarioJson.fail;
import static io.zlink.ScenarioJson.intOf;
import static io.zlink.ScenarioJson.integer;
import static io.zlink.ScenarioJson.kindOf;
import static io.zlink.ScenarioJson.object;
import static io.zlink.ScenarioJson.repr;
import static io.zlink.ScenarioJson.strOf;
import static io.zlink.ScenarioJson.text;
import static io.zlink.ScenarioJson.value;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * The {@code expect} step (testdata/scenarios/README.md, "Expectations"): one method per key,
 * checked in the Rust and Python runners' order against the host's ledger.
 */
final class ScenarioExpectations {
    /** The keys an expect step may have; any other is a mistake in the file, not skipped. */
    private static final Set<String> KEYS = Set.of("do", "delivered", "not_delivered", "completed", "ended",
            "events", "no_events", "peer_endpoint", "owner", "count", "stats", "exactly_once", "order");

    /** The README's stats names -> the keys of {@link ZlinkRuntime#stats()} ({@code group.name}). */
    private static final Map<String, String> STATS = Map.ofEntries(
            Map.entry("cache_hits", "cache_hits"),
            Map.entry("cache_misses", "cache_misses"),
            Map.entry("store_reads", "store_reads"),
            Map.entry("relays", "follow.relays"),
            Map.entry("notifications_sent", "follow.notifications_sent"),
            Map.entry("rejections_sent", "follow.rejections_sent"),
            Map.entry("frames_dropped", "follow.frames_dropped"),
            Map.entry("relocation_held", "relocation.held"),
            Map.entry("relocation_relayed", "relocation.relayed"),
            Map.entry("relocation_committed", "relocation.committed"),
            Map.entry("relocation_aborted", "relocation.aborted"),
            Map.entry("requests_unroutable", "requests.unroutable"),
            Map.entry("requests_undecodable_answered", "requests.undecodable_answered"));

    private final ScenarioHost host;
    private final ScenarioHost.Ledger ledger;

    ScenarioExpectations(ScenarioHost host) {
        this.host = host;
        this.ledger = host.ledger;
    }

    void check(JsonObject step) {
        Set<String> unknown = new TreeSet<>(step.keySet());
        unknown.removeAll(KEYS);
        if (!unknown.isEmpty()) {
            throw fail("unknown expectations " + unknown);
        }
        array(step, "delivered").forEach(w -> delivered(object(w)));
        array(step, "not_delivered").forEach(this::notDelivered);
        array(step, "completed").forEach(w -> completed(object(w)));
        array(step, "ended").forEach(w -> ended(object(w)));
        events(array(step, "events"));
        array(step, "no_events").forEach(w -> noEvent(object(w)));
        if (step.has("peer_endpoint")) {
            peerEndpoint(object(step, "peer_endpoint"));
        }
        if (step.has("owner")) {
            owner(object(step, "owner"));
        }
        JsonObject count = object(step, "count");
        if (count != null) {
            count.entrySet().forEach(e -> count(e.getKey(), e.getValue()));
        }
        if (step.has("stats")) {
            stats(object(step, "stats"));
        }
        if (Boolean.TRUE.equals(ScenarioJson.bool(step, "exactly_once"))) {
            exactlyOnce();
        }
        if (step.has("order")) {
            order(object(step, "order"));
        }
    }

    /** Delivered {@code times} (default 1) times in all, each at {@code node}. */
    private void delivered(JsonObject want) {
        long op = host.op(strOf(want, "op"));
        long node = intOf(want, "node");
        long times = value(want, "times") == null ? 1 : intOf(want, "times");
        List<Long> at = new ArrayList<>();
        for (ScenarioHost.Delivered d : ledger.delivered) {
            if (d.op() == op) {
                at.add(d.node());
            }
        }
        if (at.size() != times || at.stream().anyMatch(n -> n != node)) {
            throw fail(host.nameOf(op) + " delivered at " + at + ", expected " + times + " time(s) at node " + node);
        }
    }

    /** Delivered nowhere. */
    private void notDelivered(JsonElement name) {
        if (!name.isJsonPrimitive() || !name.getAsJsonPrimitive().isString()) {
            throw fail("op names are strings");
        }
        long op = host.op(name.getAsString());
        for (ScenarioHost.Delivered d : ledger.delivered) {
            if (d.op() == op) {
                throw fail(host.nameOf(op) + " was delivered at node " + d.node());
            }
        }
    }

    /** The request's one terminal result is what {@code want} says. */
    private void completed(JsonObject want) {
        long op = host.op(strOf(want, "op"));
        List<Outcome> got = new ArrayList<>();
        for (ScenarioHost.CompletedOp c : ledger.completed) {
            if (c.op() == op) {
                got.add(c.outcome());
            }
        }
        if (got.size() != 1) {
            throw fail(host.nameOf(op) + " completed " + got.size() + " times: " + got);
        }
        try {
            outcome(want, got.get(0));
        } catch (ScenarioFailure e) {
            throw fail(host.nameOf(op) + ": " + e.getMessage());
        }
    }

    /**
     * An outcome against {@code want}: its name, the error (an answer the target gave as an
     * error, Handler or Decode, is "Replied", and that is its {@code kind}), the Unavailable
     * reason, a reply's payload.
     */
    private static void outcome(JsonObject want, Outcome outcome) {
        String name;
        String error = null;
        String reason = null;
        String kind = null;
        if (outcome instanceof Outcome.Reply) {
            name = "Reply";
        } else if (outcome instanceof Outcome.Error e) {
            name = "Error";
            if (e.kind().equals("Handler") || e.kind().equals("Decode")) {
                error = "Replied";
                kind = e.kind();
            } else {
                error = e.kind();
                reason = e.reason().map(UnavailableReason::wireName).orElse(null);
            }
        } else if (outcome instanceof Outcome.Timeout) {
            name = "Timeout";
        } else if (outcome instanceof Outcome.Cancelled) {
            name = "Cancelled";
        } else if (outcome instanceof Outcome.Shutdown) {
            name = "Shutdown";
        } else {
            throw fail("unknown outcome " + outcome);
        }
        expectField(want, "outcome", name);
        expectField(want, "error", error);
        expectField(want, "reason", reason);
        expectField(want, "kind", kind);
        String payload = text(want, "payload");
        if (payload != null && outcome instanceof Outcome.Reply r
                && !Arrays.equals(payload.getBytes(StandardCharsets.UTF_8), r.payload())) {
            throw fail("reply " + repr(new String(r.payload(), StandardCharsets.UTF_8)) + ", expected " + repr(payload));
        }
    }

    /** The one-way operation ended once, with {@code failure} (and {@code reason}). */
    private void ended(JsonObject want) {
        long op = host.op(strOf(want, "op"));
        List<Ended> ends = new ArrayList<>();
        for (ScenarioHost.EndedOp e : ledger.ended) {
            if (e.op() == op) {
                ends.add(e.ended());
            }
        }
        if (ends.size() != 1) {
            throw fail(host.nameOf(op) + " ended " + ends.size() + " times");
        }
        Ended e = ends.get(0);
        expectField(want, "failure", e.failure());
        expectField(want, "reason", e.reason().map(UnavailableReason::wireName).orElse(null));
    }

    /** These events happened in this order (others may come between). */
    private void events(List<JsonElement> wanted) {
        int from = 0;
        for (JsonElement w : wanted) {
            JsonObject want = object(w);
            ScenarioHost.Event e = new ScenarioHost.Event(intOf(want, "node"), strOf(want, "tag"));
            int i = ledger.events.subList(from, ledger.events.size()).indexOf(e);
            if (i < 0) {
                throw fail("no event " + e.tag() + " at node " + e.node() + " (in order) among " + ledger.events);
            }
            from += i + 1;
        }
    }

    /** No such event happened (at {@code node}, or anywhere). */
    private void noEvent(JsonObject want) {
        String tag = strOf(want, "tag");
        Long node = integer(want, "node");
        for (ScenarioHost.Event e : ledger.events) {
            if (e.tag().equals(tag) && (node == null || node == e.node())) {
                throw fail("event " + tag + " happened: " + ledger.events);
            }
        }
    }

    /** Where {@code node} would reach {@code rid} ({@code endpoint} null: nowhere). */
    private void peerEndpoint(JsonObject want) {
        Optional<String> got = host.node(intOf(want, "node")).peerEndpoint(intOf(want, "rid"));
        String expected = text(want, "endpoint");
        if (!Objects.equals(got.orElse(null), expected)) {
            throw fail("peer endpoint " + repr(got.orElse(null)) + ", expected " + repr(expected));
        }
    }

    /** {@code node} owns the object now and no other node does ({@code node} null: none). */
    private void owner(JsonObject want) {
        ObjectKind kind = kindOf(want);
        String id = strOf(want, "id");
        List<Long> owners = new ArrayList<>();
        for (long rid = 1; rid <= host.nodes.size(); rid++) {
            if (host.node(rid).owned(kind, id).isPresent()) {
                owners.add(rid);
            }
        }
        Long node = integer(want, "node");
        List<Long> expected = node == null ? List.of() : List.of(node);
        if (!owners.equals(expected)) {
            throw fail("owners of " + repr(id) + ": " + owners + ", expected " + expected);
        }
    }

    /** One count so far. */
    private void count(String key, JsonElement value) {
        Map<String, LongSupplier> counts = new TreeMap<>();
        counts.put("delivered", () -> ledger.delivered.size());
        counts.put("held", () -> ledger.held);
        counts.put("late", () -> ledger.late);
        counts.put("dropped", () -> ledger.dropped);
        counts.put("in_flight", () -> host.network.size());
        counts.put("refreshed", () -> ledger.refreshed);
        counts.put("invalidated", () -> ledger.invalidated);
        counts.put("completed", () -> ledger.completed.size());
        counts.put("ended", () -> ledger.ended.size());
        LongSupplier count = counts.get(key);
        if (count == null) {
            throw fail("unknown count '" + key + "'");
        }
        long got = count.getAsLong();
        if (!Long.valueOf(got).equals(integer(value))) {
            throw fail("count " + key + " is " + got + ", expected " + value);
        }
    }

    /** Counters of one node. */
    private void stats(JsonObject want) {
        Long node = integer(want, "node");
        if (node == null) {
            throw fail("stats needs a node");
        }
        Map<String, Long> stats = host.node(node).stats();
        for (Map.Entry<String, JsonElement> e : want.entrySet()) {
            String k = e.getKey();
            if (k.equals("node")) {
                continue;
            }
            String key = STATS.get(k);
            if (key == null) {
                throw fail("unknown stat '" + k + "'");
            }
            Long got = stats.get(key);
            if (got == null) {
                throw fail("node " + node + " has no counter " + key + " (stats(): " + stats.keySet() + ")");
            }
            if (!got.equals(integer(e.getValue()))) {
                throw fail("node " + node + " stat " + k + " is " + got + ", expected " + e.getValue());
            }
        }
    }

    /**
     * No operation delivered twice, none both delivered and ended, every named one delivered,
     * ended or completed.
     */
    private void exactlyOnce() {
        Map<Long, Integer> seen = new TreeMap<>();
        for (ScenarioHost.Delivered d : ledger.delivered) {
            seen.merge(d.op(), 1, Integer::sum);
        }
        for (Map.Entry<Long, Integer> e : seen.entrySet()) {
            if (e.getValue() > 1) {
                throw fail(host.nameOf(e.getKey()) + " delivered " + e.getValue() + " times");
            }
        }
        for (Map.Entry<String, Long> e : host.names.entrySet()) {
            long op = e.getValue();
            boolean delivered = seen.containsKey(op);
            boolean ended = ledger.ended.stream().anyMatch(x -> x.op() == op);
            boolean completed = ledger.completed.stream().anyMatch(x -> x.op() == op);
            if (delivered && ended) {
                throw fail(e.getKey() + " both delivered and ended");
            }
            if (!delivered && !ended && !completed) {
                throw fail(e.getKey() + " lost: neither delivered nor ended");
            }
        }
    }

    /** These operations were delivered at {@code node} in this order. */
    private void order(JsonObject want) {
        long node = intOf(want, "node");
        if (!want.has("ops")) {
            throw fail("order needs ops");
        }
        List<Long> ops = new ArrayList<>();
        for (JsonElement n : array(want, "ops")) {
            ops.add(host.op(n.isJsonPrimitive() && n.getAsJsonPrimitive().isString() ? n.getAsString() : ""));
        }
        List<Long> at = new ArrayList<>();
        for (ScenarioHost.Delivered d : ledger.delivered) {
            if (d.node() == node && ops.contains(d.op())) {
                at.add(d.op());
            }
        }
        if (!at.equals(ops)) {
            throw fail("delivered at node " + node + " in order " + at.stream().map(host::nameOf).toList());
        }
    }
}
