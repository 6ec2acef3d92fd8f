package example;

import io.zlink.*;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Manual object peers (spec §2.3) on two JVM processes over TCP, one redis-server between them:
 * the JVM delegation path, each step under the JVM runtime's own name and delegated to
 * {@code io.zlink}.
 *
 * <p>Node 1 (this process) is configured with one manual endpoint, the address node 2 (a child
 * process, driven over its stdin) listens on. Node 1 starts with an endpoint-only intent and
 * connects; node 2's frames on that connection are refused by the admission fence. Node 2
 * publishes its descriptor; node 1's {@link ZLinkLocationAutoConnectHost.MeshNodeExecutor} finds
 * it and replaces the connection with one whose handshake shows all four descriptor values, and
 * frames pass both ways. Node 2 restarts as lifecycle generation 2 over the same connection and
 * publishes again; {@link ZLinkSpotRuntime#ensureManualObjectPeer} finds the new descriptor but it
 * waits: the old intent is still open, and generation 2's frames on it are refused. Node 2 closes
 * its generation 1 connection; node 1's {@code peerClosed} hands over the waiting replacement, the
 * connection is replaced, and generation 2's frames pass (a frame generation 1 wrote before the
 * restart does not).
 *
 * <p>Each step prints what happened and checks it; any check that fails makes the exit status 1.
 * {@code java example.PeersDemo <redis-url>}; {@code java example.PeersDemo child ...} is node 2.
 */
public final class PeersDemo {
    static final String LEDGER = "ledger";
    static final String ECHO = "echo";
    static final String NODE2_IDENTITY = "node-2.demo";

    private final List<String> failed = new ArrayList<>();

    private PeersDemo() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(args[1]);
        } else {
            System.exit(new PeersDemo().parent(args[0]) ? 0 : 1);
        }
    }

    private static RedisStore store(String url) {
        return new RedisStore(url, new RedisStore.Options().prefix("zlink-peers"));
    }

    // ---- node 2 -------------------------------------------------------------------------------

    /** Node 2: a command per stdin line, an answer per stdout line. */
    static void child(String url) throws Exception {
        try (var store = store(url); var node = new ZLinkSpotRuntime(2, 1, store, NODE2_IDENTITY)) {
            PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
            out.println("ready " + node.mesh.endpoint());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            byte[][] held = new byte[1][];
            for (String line; (line = in.readLine()) != null;) {
                String[] cmd = line.split(" ");
                String answer = switch (cmd[0]) {
                    case "activate" -> node.call(() -> {
                        node.activate(cmd[1]);
                        return "ok";
                    }).get(10, TimeUnit.SECONDS);
                    case "publish" -> node.call(() -> {
                        PeerDescriptor d = node.rt.publishDescriptor(node.mesh.endpoint(), NODE2_IDENTITY);
                        return d.endpoint() + " " + d.rid() + " " + d.lifecycleGeneration() + " " + d.securityIdentity();
                    }).get(10, TimeUnit.SECONDS);
                    case "send" -> node.call(() -> {
                        int left = 0;
                        for (String p : Arrays.copyOfRange(cmd, 2, cmd.length)) {
                            left += node.send(cmd[1], p, false) ? 1 : 0;
                        }
                        return Integer.toString(left);
                    }).get(10, TimeUnit.SECONDS);
                    case "hold" -> node.call(() -> {
                        // Encoded now, carried later: a frame this lifecycle wrote that arrives late.
                        SendResult r = node.rt.send(ObjectKind.ACTOR, cmd[1], cmd[2].getBytes(StandardCharsets.UTF_8));
                        held[0] = r instanceof Submitted s ? s.outbound().bytes() : null;
                        return held[0] != null ? "ok" : r.toString();
                    }).get(10, TimeUnit.SECONDS);
                    case "release" -> node.call(() -> Boolean.toString(held[0] != null && node.mesh.send(1, held[0])))
                            .get(10, TimeUnit.SECONDS);
                    case "restart" -> node.call(() -> {
                        node.restart(Long.parseLong(cmd[1]));
                        return "ok";
                    }).get(10, TimeUnit.SECONDS);
                    case "drain" -> node.call(() -> Integer.toString(node.mesh.closeAcceptedUnder(Long.parseLong(cmd[1]))))
                            .get(10, TimeUnit.SECONDS);
                    case "events" -> node.call(() -> node.events.toString()).get(10, TimeUnit.SECONDS);
                    case "quit" -> null;
                    default -> throw new IllegalArgumentException(line);
                };
                if (answer == null) {
                    out.println("bye");
                    return;
                }
                out.println(answer);
            }
        }
    }

    // ---- node 1 and the script ----------------------------------------------------------------

    /** Node 1 and the script; true if every check held. */
    boolean parent(String url) throws Exception {
        long started = System.nanoTime();
        try (var store = store(url); var node = new ZLinkSpotRuntime(1, store);
                var autoConnect = new ZLinkLocationAutoConnectHost()) {
            String java = ProcessHandle.current().info().command().orElse("java");
            Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    PeersDemo.class.getName(), "child", url)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader from = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            PrintStream to = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
            String endpoint = from.readLine().split(" ")[1];
            try {
                script(node, autoConnect, endpoint, to, from);
            } catch (Exception e) {
                failed.add("the script threw " + e);
                e.printStackTrace(System.out);
            } finally {
                System.out.println("node 2 events: " + ask(to, from, "events"));
                to.println("quit");
                child.waitFor(10, TimeUnit.SECONDS);
                child.destroyForcibly();
                System.out.println("node 1 transport: " + node.mesh.log);
                System.out.println("node 1 events: " + node.call(() -> List.copyOf(node.events)).get());
                System.out.printf("wall time %d ms%n", (System.nanoTime() - started) / 1_000_000);
            }
        }
        if (failed.isEmpty()) {
            System.out.println("manual object peers: every check held");
            return true;
        }
        System.out.println("manual object peers: " + failed.size() + " check(s) FAILED: " + failed);
        return false;
    }

    private void script(ZLinkSpotRuntime node, ZLinkLocationAutoConnectHost autoConnect, String endpoint,
            PrintStream to, BufferedReader from) throws Exception {
        node.call(() -> {
            node.activate(LEDGER);
            return null;
        }).get(10, TimeUnit.SECONDS);

        step("1. node 1 starts with one manual endpoint, " + endpoint + ": an endpoint-only intent "
                + "(ZLinkFrameworkRuntime start -> addManualPeer), connected (peerOpened)");
        ZLinkFrameworkRuntime framework = ZLinkFrameworkRuntime.start(node, List.of(endpoint));
        List<PeerReplacement> atStart = framework.connectManualObjectPeers();
        say("connectManualObjectPeers -> connectManualPeers: " + atStart);
        check("no descriptor yet, nothing to replace", atStart.isEmpty());
        PeerIntent intent = intent(node, endpoint);
        say("peerIntent: " + describe(intent));
        check("installed: none (endpoint-only)", intent.installed().isEmpty());
        check("open, the handshake showed rid 2",
                intent.liveness().equals("open") && intent.observedRid().equals(OptionalLong.of(2)));
        Optional<String> where = node.call(() -> node.mesh.endpointOf(2)).get();
        say("peerEndpoint(2): " + where);
        check("node 2 is not placed through an endpoint-only intent", where.isEmpty());
        ZLinkLocationAutoConnectHost.MeshNodeExecutor executor = autoConnect.start(node, 100);
        say("ZLinkLocationAutoConnectHost.MeshNodeExecutor started on node 1 (connectManualPeersAsync every 100 ms)");

        step("2. node 2 (generation 1) sends 3 messages to " + LEDGER + " on node 1 over that connection");
        say("left: " + ask(to, from, "send " + LEDGER + " a1 a2 a3"));
        await(() -> refused(node) >= 3, "3 refusals");
        check("onPeerFrame -> PeerRefused for all 3 (no descriptor installed)", refused(node) == 3);
        check(LEDGER + " received nothing", seen(node).isEmpty());

        step("3. node 2 publishes its descriptor (publishDescriptor) and activates " + ECHO);
        say("node 2: " + ask(to, from, "activate " + ECHO));
        String published = ask(to, from, "publish");
        say("descriptor published: " + published);
        check("descriptor: " + endpoint + " rid 2 generation 1 " + NODE2_IDENTITY,
                published.equals(endpoint + " 2 1 " + NODE2_IDENTITY));

        step("4. the MeshNodeExecutor finds it and calls replacePeerConnection(endpoint, rid, lifecycleGeneration, "
                + "securityIdentity)");
        await(() -> executor.connected.size() >= 1 && isOpen(intent(node, endpoint), 1), "the generation 1 connection");
        say("connected by the executor: " + executor.connected + " after " + executor.passes.get() + " passes");
        check("the executor's replacement carries all four values",
                executor.connected.equals(List.of(new PeerDescriptor(endpoint, 2, 1, NODE2_IDENTITY))));
        intent = intent(node, endpoint);
        say("peerIntent: " + describe(intent));
        check("installed generation 1, open with rid 2", isOpen(intent, 1));
        where = node.call(() -> node.mesh.endpointOf(2)).get();
        say("peerEndpoint(2): " + where);
        check("node 2 is placed through the descriptor", where.equals(Optional.of(endpoint)));

        step("5. frames pass both ways: node 2 sends 3 messages, node 1 requests " + ECHO + " on node 2");
        say("left: " + ask(to, from, "send " + LEDGER + " b1 b2 b3"));
        long correlation = node.call(() -> {
            SendResult r = node.rt.request(ObjectKind.ACTOR, ECHO, "ping".getBytes(StandardCharsets.UTF_8));
            if (r instanceof Submitted s && node.carry(s.outbound())) {
                return s.correlation().orElseThrow();
            }
            throw new IllegalStateException("request " + ECHO + ": " + r);
        }).get(10, TimeUnit.SECONDS);
        await(() -> seen(node).size() >= 3 && node.call(() -> node.completions.containsKey(correlation)).get(),
                "the messages and the reply");
        say(LEDGER + " received " + seen(node));
        check(LEDGER + " received b1 b2 b3 (onPeerFrame -> Deliver)", seen(node).equals(List.of("b1", "b2", "b3")));
        List<Outcome> outcome = node.call(() -> node.completions.get(correlation)).get();
        String reply = outcome != null && outcome.size() == 1 && outcome.get(0) instanceof Outcome.Reply r
                ? new String(r.payload(), StandardCharsets.UTF_8) : String.valueOf(outcome);
        say("the request to " + ECHO + " ended: " + reply);
        check("it ended once, with re:ping (onPeerFrame -> Completed)", reply.equals("re:ping"));

        step("6. node 2 restarts as lifecycle generation 2 over the same connection and publishes again");
        say("node 2 generation 1 writes a frame to " + LEDGER + " and keeps it: " + ask(to, from, "hold " + LEDGER + " late"));
        say("node 2: " + ask(to, from, "restart 2"));
        published = ask(to, from, "publish");
        say("descriptor published: " + published);
        check("descriptor: generation 2", published.equals(endpoint + " 2 2 " + NODE2_IDENTITY));
        Optional<PeerReplacement> ensured = node.call(() -> node.ensureManualObjectPeer(endpoint)).get(10, TimeUnit.SECONDS);
        say("ZLinkSpotRuntime.ensureManualObjectPeer -> ensureManualPeer: " + ensured);
        check("no replacement now: the generation 1 intent is still open", ensured.isEmpty());
        intent = intent(node, endpoint);
        say("peerIntent: " + describe(intent));
        check("installed generation 1, open, generation 2 pending",
                isOpen(intent, 1) && intent.pending().map(PeerDescriptor::lifecycleGeneration).equals(Optional.of(2L)));

        step("7. node 2 (generation 2) sends 3 messages on the connection admitted for generation 1");
        say("left: " + ask(to, from, "send " + LEDGER + " c1 c2 c3"));
        await(() -> refused(node) >= 6, "3 more refusals");
        check("onPeerFrame -> PeerRefused for all 3 (the fence's lifecycle is generation 1)", refused(node) == 6);
        check(LEDGER + " still holds b1 b2 b3 only", seen(node).equals(List.of("b1", "b2", "b3")));

        step("8. node 2 closes its generation 1 connection; node 1's transport sees the close (peerClosed)");
        say("node 2 closed " + ask(to, from, "drain 1") + " connection(s)");
        await(() -> isOpen(intent(node, endpoint), 2), "the generation 2 connection");
        List<PeerDescriptor> onClose = node.call(() -> List.copyOf(node.mesh.installedOnClose)).get();
        say("peerClosed handed over: " + onClose);
        check("the waiting replacement was installed on the close, with all four values",
                onClose.equals(List.of(new PeerDescriptor(endpoint, 2, 2, NODE2_IDENTITY))));
        intent = intent(node, endpoint);
        say("peerIntent: " + describe(intent));
        check("installed generation 2, open with rid 2, nothing pending", isOpen(intent, 2) && intent.pending().isEmpty());
        check("the executor replaced nothing itself", executor.connected.size() == 1 && executor.failures.isEmpty());

        step("9. on the new connection: generation 1's late frame, then 3 messages from generation 2");
        say("node 2 sent the late frame: " + ask(to, from, "release"));
        await(() -> refused(node) >= 7, "the late frame's refusal");
        check("onPeerFrame -> PeerRefused for the late generation 1 frame", refused(node) == 7);
        say("left: " + ask(to, from, "send " + LEDGER + " d1 d2 d3"));
        await(() -> seen(node).size() >= 6, "3 more messages");
        say(LEDGER + " received " + seen(node));
        check(LEDGER + " received b1 b2 b3 d1 d2 d3: nothing refused arrived, nothing twice",
                seen(node).equals(List.of("b1", "b2", "b3", "d1", "d2", "d3")));
        check("7 refused in all", refused(node) == 7);
    }

    // ---- helpers ------------------------------------------------------------------------------

    private static String ask(PrintStream to, BufferedReader from, String command) throws Exception {
        to.println(command);
        return from.readLine();
    }

    private static PeerIntent intent(ZLinkSpotRuntime node, String endpoint) throws Exception {
        return node.call(() -> node.mesh.intent(endpoint).orElseThrow()).get(10, TimeUnit.SECONDS);
    }

    private static boolean isOpen(PeerIntent i, long generation) {
        return i.liveness().equals("open") && i.observedRid().equals(OptionalLong.of(2))
                && i.installed().map(PeerDescriptor::lifecycleGeneration).equals(Optional.of(generation));
    }

    private static String describe(PeerIntent i) {
        return "installed " + i.installed().map(d -> "rid " + d.rid() + " generation " + d.lifecycleGeneration())
                .orElse("none") + ", " + i.liveness()
                + (i.observedRid().isPresent() ? " (observed rid " + i.observedRid().getAsLong() + ")" : "")
                + ", pending " + i.pending().map(d -> "generation " + d.lifecycleGeneration()).orElse("none");
    }

    private static long refused(ZLinkSpotRuntime node) throws Exception {
        return node.call(() -> node.peerRefused).get(10, TimeUnit.SECONDS);
    }

    private static List<String> seen(ZLinkSpotRuntime node) throws Exception {
        return node.call(() -> List.copyOf(node.actors.get(LEDGER).seen)).get(10, TimeUnit.SECONDS);
    }

    private static void step(String what) {
        System.out.println();
        System.out.println(what);
    }

    private static void say(String what) {
        System.out.println("   " + what);
    }

    private void check(String what, boolean holds) {
        System.out.println("   " + (holds ? "ok: " : "FAILED: ") + what);
        if (!holds) {
            failed.add(what);
        }
    }

    private static void await(Demo.Check check, String what) throws Exception {
        for (int i = 0; i < 200; i++) {
            if (check.holds()) {
                return;
            }
            Thread.sleep(25);
        }
        System.out.println("   timed out waiting: " + what);
    }
}
