package io.zlink;

import static io.zlink.ScenarioJson.bool;
import static io.zlink.ScenarioJson.expectTag;
import static io.zlink.ScenarioJson.fail;
import static io.zlink.ScenarioJson.intOf;
import static io.zlink.ScenarioJson.integer;
import static io.zlink.ScenarioJson.kindOf;
import static io.zlink.ScenarioJson.object;
import static io.zlink.ScenarioJson.payloadOf;
import static io.zlink.ScenarioJson.strOf;
import static io.zlink.ScenarioJson.text;

import com.google.gson.JsonObject;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The steps of a scenario (testdata/scenarios/README.md, "Steps"), one method per kind, each
 * doing over the Java API what the Rust and Python runners do over theirs.
 */
final class ScenarioSteps {
    private final ScenarioHost host;
    /**
     * Whether a route a step got is looked up twice more, through the near cache (the first keeps
     * it, the second is a near hit): the same route each time, or the step fails. Only in
     * scenarios that expect no counters (the extra lookups count as cache hits); a lookup is
     * cache-only, so it changes nothing else.
     */
    private final boolean nearRecheck;

    ScenarioSteps(ScenarioHost host, boolean nearRecheck) {
        this.host = host;
        this.nearRecheck = nearRecheck;
    }

    /** The near-cache recheck of {@code route}, which a step just got for {@code (kind, id)}. */
    private void nearRecheck(ZlinkRuntime node, ObjectKind kind, String id, ReadyRoute route) {
        if (!nearRecheck) {
            return;
        }
        Optional<ReadyRoute> first = node.lookupCached(kind, id);
        if (first.isEmpty()) {
            return; // not cached (a resolve the cache does not keep)
        }
        for (int i = 0; i < 2; i++) {
            Optional<ReadyRoute> again = i == 0 ? first : node.lookupCached(kind, id);
            if (!again.orElseThrow().equals(route)) {
                throw fail("looked up again through the near cache: " + again.get() + ", not " + route);
            }
        }
    }

    /** Runs one step; a {@link ScenarioFailure} says why it did not give what the file says. */
    void run(JsonObject step) {
        String what = strOf(step, "do");
        switch (what) {
            case "activate", "create", "publish_ready", "begin_release", "complete_release", "release" ->
                    lifecycle(step, what);
            case "publish_descriptor" -> publishDescriptor(step);
            case "add_manual_peer" -> addManualPeer(step);
            case "ensure_manual_peer", "peer_closed" -> manualPeer(step, what);
            case "peer_opened" -> peerOpened(step);
            case "resolve" -> resolve(step);
            case "lookup_cached" -> lookupCached(step);
            case "send" -> send(step, false);
            case "request" -> send(step, true);
            case "cancel" -> cancel(step);
            case "carry" -> carry();
            case "step" -> stepFrames(step);
            case "rule" -> rule(step);
            case "release_held" -> releaseHeld();
            case "advance" -> advance(step);
            case "begin_relocation" -> beginRelocation(step);
            case "abort_relocation" -> abortRelocation(step);
            case "host" -> host.host(step);
            case "open_session" -> openSession(step);
            case "bind" -> bind(step);
            case "session_send" -> sessionSend(step);
            case "push" -> push(step);
            case "owner_lease_invalidated" -> invalidated(step, true);
            case "store_recovered" -> invalidated(step, false);
            case "disconnect" -> disconnect(step);
            case "expect" -> new ScenarioExpectations(host).check(step);
            case "build" -> throw fail("a build step comes only first, alone");
            default -> throw fail("unknown step '" + what + "'");
        }
    }

    // ---- a call's error ---------------------------------------------------

    /** A call step's result: refused as the step expected (nothing more to check), or the value. */
    private record Called<T>(boolean refused, T value) {}

    /**
     * Runs a call step's call against {@code expect.error}: a zlink exception must be the error
     * the step names (README names, see {@link ScenarioJson#errorName}); a success must not
     * have been expected to fail.
     */
    private static <T> Called<T> call(JsonObject step, Supplier<T> call) {
        JsonObject expect = object(step, "expect");
        String want = expect == null ? null : text(expect, "error");
        T value;
        try {
            value = call.get();
        } catch (RuntimeException e) {
            if (!(e instanceof ZlinkError z)) {
                throw e;
            }
            String got = ScenarioJson.errorName(z);
            String detail = got + " (" + e.getClass().getSimpleName() + ".kind='" + z.kind() + "': "
                    + e.getMessage() + ")";
            if (want == null) {
                throw new ScenarioFailure("unexpected error " + detail, e);
            }
            if (!got.equals(want)) {
                throw new ScenarioFailure("expected error " + want + ", got " + detail, e);
            }
            return new Called<>(true, null);
        }
        if (want != null) {
            throw fail("expected error " + want + ", the call succeeded");
        }
        return new Called<>(false, value);
    }

    /** {@link #call} for a call with no value. */
    private static boolean refused(JsonObject step, Runnable call) {
        return call(step, () -> {
            call.run();
            return Boolean.TRUE;
        }).refused();
    }

    /** The step's {@code expect}, or an empty object (expects nothing). */
    private static JsonObject expectOf(JsonObject step) {
        JsonObject want = object(step, "expect");
        return want == null ? new JsonObject() : want;
    }

    // ---- lifecycle and manual peers -----------------------------------------

    /** activate, create, publish_ready, begin_release, complete_release, release: one write each. */
    private void lifecycle(JsonObject step, String what) {
        ZlinkRuntime node = host.node(intOf(step, "node"));
        ObjectKind kind = kindOf(step);
        String id = strOf(step, "id");
        refused(step, () -> {
            switch (what) {
                case "activate" -> node.activate(kind, id);
                case "create" -> node.create(kind, id);
                case "publish_ready" -> node.publishReady(kind, id);
                case "begin_release" -> node.beginRelease(kind, id);
                case "complete_release" -> node.completeRelease(kind, id);
                default -> {
                    // release: begin_release, then complete_release.
                    node.beginRelease(kind, id);
                    node.completeRelease(kind, id);
                }
            }
        });
    }

    private void publishDescriptor(JsonObject step) {
        ZlinkRuntime node = host.node(intOf(step, "node"));
        String endpoint = strOf(step, "endpoint");
        String identity = strOf(step, "identity");
        call(step, () -> node.publishDescriptor(endpoint, identity));
    }

    private void addManualPeer(JsonObject step) {
        ZlinkRuntime node = host.node(intOf(step, "node"));
        String endpoint = strOf(step, "endpoint");
        refused(step, () -> node.addManualPeer(endpoint));
    }

    /** ensure_manual_peer, peer_closed: a replacement to perform now, or none. */
    private void manualPeer(JsonObject step, String what) {
        ZlinkRuntime node = host.node(intOf(step, "node"));
        String endpoint = strOf(step, "endpoint");
        Called<Optional<PeerReplacement>> r = call(step, () -> what.equals("peer_closed")
                ? node.peerClosed(endpoint) : node.ensureManualPeer(endpoint));
        if (r.refused()) {
            return;
        }
        Optional<PeerReplacement> found = r.value();
        JsonObject want = expectOf(step);
        Boolean w = bool(want, "replacement");
        if (w != null && w != found.isPresent()) {
            throw fail("expected replacement " + w + ", got " + found);
        }
        Long rid = integer(want, "rid");
        if (rid != null && found.isPresent() && found.get().descriptor().rid() != rid) {
            throw fail("replacement names " + found.get().descriptor().rid() + ", expected " + rid);
        }
    }

    private void peerOpened(JsonObject step) {
        ZlinkRuntime node = host.node(intOf(step, "node"));
        String endpoint = strOf(step, "endpoint");
        long rid = intOf(step, "rid");
        refused(step, () -> node.peerOpened(endpoint, rid));
    }

    // ---- resolution and operations ------------------------------------------

    private void resolve(JsonObject step) {
        ZlinkRuntime node = host.node(intOf(step, "node"));
        ObjectKind kind = kindOf(step);
        String id = strOf(step, "id");
        Called<Resolution> r = call(step, () -> node.resolve(kind, id));
        if (!r.refused() && r.value() instanceof ReadyRoute route) {
            nearRecheck(node, kind, id, route);
        }
        JsonObject want = object(step, "expect");
        if (r.refused() || want == null) {
            return;
        }
        Resolution got = r.value();
        String tag;
        Long at = null;
        String reason = null;
        if (got instanceof ReadyRoute route) {
            tag = "ReadyRoute";
            at = route.node();
        } else if (got instanceof Missing) {
            tag = "Missing";
        } else if (got instanceof Unavailable u) {
            tag = "Unavailable";
            reason = u.reason().wireName();
        } else if (got instanceof StoreFailure) {
            tag = "StoreFailure";
        } else {
            throw fail("resolve gave " + got);
        }
        try {
            expectTag(want, tag, at, reason);
        } catch (ScenarioFailure e) {
            throw fail(e.getMessage() + " (" + got + ")");
        }
    }

    private void lookupCached(JsonObject step) {
        ZlinkRuntime node = host.node(intOf(step, "node"));
        ObjectKind kind = kindOf(step);
        String id = strOf(step, "id");
        Called<Optional<ReadyRoute>> r = call(step, () -> node.lookupCached(kind, id));
        if (r.refused()) {
            return;
        }
        Optional<ReadyRoute> hit = r.value();
        if (hit.isPresent()) {
            nearRecheck(node, kind, id, hit.get());
        }
        JsonObject want = expectOf(step);
        Boolean w = bool(want, "hit");
        if (w != null && w != hit.isPresent()) {
            throw fail("expected hit " + w + ", got " + hit);
        }
        Long n = integer(want, "node");
        if (n != null && hit.isPresent() && hit.get().node() != n) {
            throw fail("expected node " + n + ", got " + hit.get().node());
        }
    }

    /**
     * send, request: a submitted frame is posted and its operation named ("as"); a request's
     * correlation is kept for {@code cancel}. No timeout_ms: the core's default (5 s).
     */
    private void send(JsonObject step, boolean request) {
        long rid = intOf(step, "node");
        ZlinkRuntime node = host.node(rid);
        ObjectKind kind = kindOf(step);
        String id = strOf(step, "id");
        byte[] payload = payloadOf(step, "payload");
        SendOptions options = SendOptions.DEFAULT.withInstanceIntent(Boolean.TRUE.equals(bool(step, "instance")));
        Long timeout = integer(step, "timeout_ms");
        if (request && timeout != null) {
            options = options.withTimeoutMs(timeout);
        }
        SendOptions chosen = options;
        Called<SendResult> r = call(step, () -> request
                ? node.request(kind, id, payload, chosen) : node.send(kind, id, payload, chosen));
        if (r.refused()) {
            return;
        }
        SendResult got = r.value();
        String tag;
        Long to = null;
        String reason = null;
        String name = text(step, "as");
        if (got instanceof Submitted s) {
            tag = "Submitted";
            to = s.outbound().to().rid();
            if (name != null) {
                if (request) {
                    if (s.correlation().isEmpty()) {
                        throw fail("a submitted request without a correlation: " + s);
                    }
                    host.requests.put(name, s.correlation().getAsLong());
                }
                host.names.put(name, s.operationId());
            }
            host.post(rid, s.outbound());
        } else if (got instanceof NotFound) {
            tag = "NotFound";
        } else if (got instanceof ColdActivation) {
            tag = "ColdActivation";
        } else if (got instanceof Unavailable u) {
            tag = "Unavailable";
            reason = u.reason().wireName();
        } else if (got instanceof StoreFailure) {
            tag = "StoreFailure";
        } else {
            throw fail((request ? "request" : "send") + " gave " + got);
        }
        JsonObject want = object(step, "expect");
        if (want != null) {
            expectTag(want, tag, to, reason);
        }
    }

    /** Cancels a named request; its Completion (if it had not ended) is recorded. */
    private void cancel(JsonObject step) {
        String name = strOf(step, "op");
        Long correlation = host.requests.get(name);
        if (correlation == null) {
            throw fail("no request named '" + name + "'");
        }
        ZlinkRuntime node = host.node(intOf(step, "node"));
        // A cancel never fails; through call() an expected error in the file is not ignored.
        Called<Optional<Completion>> r = call(step, () -> node.cancel(correlation));
        if (r.refused()) {
            return;
        }
        Optional<Completion> done = r.value();
        done.ifPresent(c -> host.ledger.completed.add(new ScenarioHost.CompletedOp(c.operationId(), c.outcome())));
        Boolean w = bool(expectOf(step), "cancelled");
        if (w != null && w != done.isPresent()) {
            throw fail("expected cancelled " + w + ", got " + done.isPresent());
        }
    }

    // ---- the network and the clock ----------------------------------------

    /** Carries frames until none is in flight. */
    private void carry() {
        int n = 0;
        while (host.stepFrame()) {
            n++;
            if (n > 100_000) {
                throw fail("the network never went quiet");
            }
        }
    }

    /** Carries {@code frames} frames (fewer if the network goes quiet). */
    private void stepFrames(JsonObject step) {
        long frames = intOf(step, "frames");
        for (long i = 0; i < frames; i++) {
            host.stepFrame();
        }
    }

    /** Sets or clears (null) the drop, hold and corruption rules the step names; others stay. */
    private void rule(JsonObject step) {
        if (step.has("drop")) {
            host.dropRule = ScenarioHost.Matcher.fromJson(step.get("drop"));
        }
        if (step.has("hold")) {
            host.holdRule = ScenarioHost.Matcher.fromJson(step.get("hold"));
        }
        if (step.has("truncate")) {
            host.truncateRule = ScenarioHost.Matcher.fromJson(step.get("truncate"));
        }
        if (step.has("corrupt_kind")) {
            host.corruptKindRule = ScenarioHost.Matcher.fromJson(step.get("corrupt_kind"));
        }
    }

    /** Held frames go back on the network, in order. */
    private void releaseHeld() {
        host.network.addAll(host.heldBack);
        host.heldBack.clear();
    }

    /** Moves the clock, then runs every node's due timers, in node order. */
    private void advance(JsonObject step) {
        host.clock.advance(intOf(step, "ms"));
        for (long rid = 1; rid <= host.nodes.size(); rid++) {
            host.due(rid);
        }
    }

    // ---- relocation ---------------------------------------------------------

    private void beginRelocation(JsonObject step) {
        long rid = intOf(step, "node");
        NodeIdentity target = host.node(intOf(step, "target")).identity();
        ZlinkRuntime node = host.node(rid);
        ObjectKind kind = kindOf(step);
        String id = strOf(step, "id");
        byte[] state = payloadOf(step, "state");
        Called<RelocationStarted> r = call(step, () -> node.beginRelocation(kind, id, target.rid(),
                target.generation(), List.of(), state));
        if (!r.refused()) {
            host.postAll(rid, r.value().send());
        }
    }

    private void abortRelocation(JsonObject step) {
        long rid = intOf(step, "node");
        ZlinkRuntime node = host.node(rid);
        ObjectKind kind = kindOf(step);
        String id = strOf(step, "id");
        Called<Relocation> r = call(step, () -> node.abortRelocation(kind, id));
        if (!r.refused()) {
            host.relocation(rid, r.value());
        }
    }

    // ---- sessions -------------------------------------------------------------

    /** Opens Session {@code session}, lifecycle generation 1. */
    private void openSession(JsonObject step) {
        ZlinkRuntime node = host.node(intOf(step, "node"));
        long session = intOf(step, "session");
        Called<SessionRef> r = call(step, () -> node.openSession(session, 1));
        if (!r.refused()) {
            host.sessions.put(intOf(step, "node") + "/" + session, r.value());
        }
    }

    /** {@code owner_lease_invalidated} and {@code store_recovered}: what the host's transport or store saw. */
    private void invalidated(JsonObject step, boolean lease) {
        ZlinkRuntime node = host.node(intOf(step, "node"));
        Called<Long> r = lease
                ? call(step, () -> node.onOwnerLeaseInvalidated(intOf(step, "of"), intOf(step, "lease")))
                : call(step, node::onStoreRecovery);
        if (r.refused()) {
            return;
        }
        Long w = integer(expectOf(step), "removed");
        if (w != null && w.longValue() != r.value()) {
            throw fail("removed " + r.value() + ", expected " + w);
        }
    }

    /**
     * The Actor's owner pushes on the binding Session {@code session} (opened on node {@code
     * session_node}) holds, if it has one there; posts the frame.
     */
    private void push(JsonObject step) {
        long rid = intOf(step, "node");
        ZlinkRuntime node = host.node(rid);
        String key = intOf(step, "session_node") + "/" + intOf(step, "session");
        SessionRef session = host.sessions.get(key);
        if (session == null) {
            throw fail("no session " + key + " opened");
        }
        String id = strOf(step, "id");
        byte[] payload = payloadOf(step, "payload");
        Called<Optional<Outbound>> r = call(step, () -> node.push(id, session, payload));
        if (r.refused()) {
            return;
        }
        r.value().ifPresent(out -> host.post(rid, out));
        Boolean w = bool(expectOf(step), "pushed");
        if (w != null && w != r.value().isPresent()) {
            throw fail("expected pushed " + w + ", got " + r.value().isPresent());
        }
    }

    /** Binds to Actor {@code id} at the route node {@code owner} hands out; posts the frame. */
    private void bind(JsonObject step) {
        long rid = intOf(step, "node");
        String id = strOf(step, "id");
        ZlinkRuntime owner = host.node(intOf(step, "owner"));
        Optional<RouteEnd> end;
        try {
            end = owner.ownerRouteEnd(ObjectKind.ACTOR, id);
        } catch (RuntimeException e) {
            throw new ScenarioFailure(ScenarioHost.described(e), e);
        }
        if (end.isEmpty()) {
            throw fail("node " + owner.identity().rid() + " does not own '" + id + "'");
        }
        ZlinkRuntime node = host.node(rid);
        long session = intOf(step, "session");
        Called<Outbound> r = call(step, () -> node.bind(session, id, end.get()));
        if (!r.refused()) {
            host.post(rid, r.value());
        }
    }

    private void sessionSend(JsonObject step) {
        long rid = intOf(step, "node");
        ZlinkRuntime node = host.node(rid);
        long session = intOf(step, "session");
        String id = strOf(step, "id");
        byte[] payload = payloadOf(step, "payload");
        Called<SessionSendResult> r = call(step, () -> node.sessionSend(session, id, payload));
        if (r.refused()) {
            return;
        }
        SessionSendResult got = r.value();
        String tag;
        Long op = null;
        if (got instanceof SessionSent s) {
            host.post(rid, s.outbound());
            tag = "Sent";
            op = s.operationId();
        } else if (got instanceof SessionHeld h) {
            tag = "Held";
            op = h.operationId();
        } else if (got instanceof Unavailable) {
            tag = "Unavailable";
        } else {
            throw fail("session_send gave " + got);
        }
        String name = text(step, "as");
        if (name != null && op != null) {
            host.names.put(name, op);
        }
        JsonObject want = object(step, "expect");
        if (want != null) {
            expectTag(want, tag, null, null);
        }
    }

    /** The Session's connection closed ("physical", default true) or it ended: posts the notifications. */
    private void disconnect(JsonObject step) {
        long rid = intOf(step, "node");
        ZlinkRuntime node = host.node(rid);
        long session = intOf(step, "session");
        boolean physical = !Boolean.FALSE.equals(bool(step, "physical"));
        Called<List<Outbound>> r = call(step, () -> node.disconnectSession(session, physical));
        if (!r.refused()) {
            host.postAll(rid, r.value());
        }
    }
}
