package example;

import io.zlink.*;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Two JVM processes on one redis-server, each a {@link ZLinkSpotRuntime} node: node 2 (a child
 * process, driven over its stdin) activates the Actor "counter"; node 1 resolves it, sends it
 * messages and requests and relays a Session's messages to it, and halfway through node 2 moves
 * the Actor to node 1 while traffic continues (frames in flight follow it through Message Follow,
 * the Session is resealed to the new owner). The tally at the end must show nothing lost and
 * nothing duplicated, and every request ended once.
 *
 * <p>{@code java example.Demo <redis-url>} runs it; {@code java example.Demo child ...} is node 2.
 */
public final class Demo {
    static final String ACTOR = "counter";
    static final int MESSAGES = 300;
    static final int SESSION_MESSAGES = 100;

    private Demo() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(args[1], Integer.parseInt(args[2]));
        } else {
            System.exit(parent(args[0]) ? 0 : 1);
        }
    }

    /** Node 2: a command per stdin line, an answer per stdout line. */
    static void child(String url, int parentPort) throws Exception {
        try (var store = new RedisStore(url); var node = new ZLinkSpotRuntime(2, store)) {
            node.transport.peer(1, parentPort);
            PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
            out.println("ready " + node.transport.port());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null;) {
                String[] cmd = line.split(" ");
                switch (cmd[0]) {
                    case "activate" -> node.call(() -> { node.activate(cmd[1]); return 0; }).get(10, TimeUnit.SECONDS);
                    case "move" -> node.call(() -> { node.move(cmd[1], Long.parseLong(cmd[2])); return 0; })
                            .get(10, TimeUnit.SECONDS);
                    case "tally" -> {
                        out.println(node.call(() -> node.delivered + " " + node.relayed + " " + node.actors.keySet()
                                + " " + node.events).get(10, TimeUnit.SECONDS));
                        continue;
                    }
                    case "quit" -> {
                        out.println("bye");
                        return;
                    }
                    default -> throw new IllegalArgumentException(line);
                }
                out.println("ok");
            }
        }
    }

    /** Node 1 and the script; true if the tally is clean. */
    static boolean parent(String url) throws Exception {
        long started = System.nanoTime();
        try (var store = new RedisStore(url); var node = new ZLinkSpotRuntime(1, store)) {
            String java = ProcessHandle.current().info().command().orElse("java");
            Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    Demo.class.getName(), "child", url, Integer.toString(node.transport.port()))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader from = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            PrintStream to = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8);
            node.transport.peer(2, Integer.parseInt(from.readLine().split(" ")[1]));
            try {
                return script(node, to, from);
            } finally {
                to.println("quit");
                child.waitFor(10, TimeUnit.SECONDS);
                child.destroyForcibly();
                System.out.printf("wall time %d ms%n", (System.nanoTime() - started) / 1_000_000);
            }
        }
    }

    private static String ask(PrintStream to, BufferedReader from, String command) throws Exception {
        to.println(command);
        return from.readLine();
    }

    private static boolean script(ZLinkSpotRuntime node, PrintStream to, BufferedReader from) throws Exception {
        System.out.println("node 2: " + ask(to, from, "activate " + ACTOR) + " (activated " + ACTOR + ")");
        Resolution where = node.call(() -> node.rt.resolve(ObjectKind.ACTOR, ACTOR)).get(10, TimeUnit.SECONDS);
        System.out.println("node 1 resolves " + ACTOR + ": " + where);
        ReadyRoute route = (ReadyRoute) where;

        // A Session on node 1 bound to the Actor on node 2.
        node.call(() -> {
            node.rt.openSession(1, 1);
            var owner = new NodeRef(route.mesh(), route.node(), route.fence().nodeGeneration());
            var f = route.fence();
            return node.carry(node.rt.bind(1, ACTOR, new ActorRoute(owner, f.objectGeneration(),
                    f.authorityOwnerGeneration(), f.ownerLeaseGeneration(), 0)));
        }).get(10, TimeUnit.SECONDS);
        await(() -> node.call(() -> node.rt.binding(1, ACTOR).isPresent()).get(), "the session is bound");

        List<String> sent = new ArrayList<>();
        List<String> sessionSent = new ArrayList<>();
        int requests = 0;
        for (int i = 0; i < MESSAGES; i++) {
            boolean request = i % 3 == 0;
            String payload = (request ? "q" : "m") + i;
            if (node.call(() -> node.send(ACTOR, payload, request)).get(10, TimeUnit.SECONDS)) {
                sent.add(payload);
                requests += request ? 1 : 0;
            }
            if (i % 3 == 1 && sessionSent.size() < SESSION_MESSAGES) {
                String s = "s" + i;
                SessionSendResult r = node.call(() -> {
                    SessionSendResult x = node.rt.sessionSend(1, ACTOR, s.getBytes(StandardCharsets.UTF_8));
                    if (x instanceof SessionSent ss) {
                        node.carry(ss.outbound());
                    }
                    return x;
                }).get(10, TimeUnit.SECONDS);
                if (!(r instanceof Unavailable)) {
                    sessionSent.add(s);
                }
            }
            if (i == MESSAGES / 2) {
                System.out.println("node 2: " + ask(to, from, "move " + ACTOR + " 1") + " (moving " + ACTOR
                        + " to node 1 under traffic)");
            }
            Thread.sleep(1);
        }
        int expectedRequests = requests;
        await(() -> node.call(() -> node.actors.containsKey(ACTOR)
                && node.actors.get(ACTOR).seen.size() >= sent.size() + sessionSent.size()
                && node.completions.size() >= expectedRequests).get(), "everything arrived");

        // The tally: the Actor's state moved with it, so node 1's copy holds everything delivered.
        List<String> seen = node.call(() -> List.copyOf(node.actors.get(ACTOR).seen)).get();
        Map<Long, List<Outcome>> completions = node.call(() -> Map.copyOf(node.completions)).get();
        String childTally = ask(to, from, "tally");
        long relayed = node.call(() -> node.relayed).get();
        int lost = 0;
        int duplicated = 0;
        for (String p : sent) {
            long n = seen.stream().filter(p::equals).count();
            lost += n == 0 ? 1 : 0;
            duplicated += n > 1 ? (int) n - 1 : 0;
        }
        List<String> sessionSeen = seen.stream().filter(s -> s.startsWith("s")).toList();
        int sessionLost = (int) sessionSent.stream().filter(s -> !sessionSeen.contains(s)).count();
        int sessionDup = sessionSeen.size() - (int) sessionSeen.stream().distinct().count();
        boolean inOrder = sessionSeen.equals(sessionSent.stream().filter(sessionSeen::contains).toList());
        long endedOnce = completions.values().stream().filter(o -> o.size() == 1 && o.get(0) instanceof Outcome.Reply)
                .count();

        System.out.println();
        System.out.printf("%-10s %6s %10s %5s %11s %9s %11s%n", "traffic", "sent", "delivered", "lost",
                "duplicated", "requests", "ended once");
        System.out.printf("%-10s %6d %10d %5d %11d %9d %11d%n", "by id", sent.size(),
                sent.size() - lost + duplicated, lost, duplicated, expectedRequests, endedOnce);
        System.out.printf("%-10s %6d %10d %5d %11d %9s %11s%n", "session", sessionSent.size(),
                sessionSeen.size(), sessionLost, sessionDup, "-", inOrder ? "in order" : "OUT OF ORDER");
        System.out.println("node 1 relayed " + relayed + "; node 2 (delivered relayed actors events): " + childTally);
        System.out.println("node 1 events: " + node.call(() -> List.copyOf(node.events)).get());
        return lost == 0 && duplicated == 0 && sessionLost == 0 && sessionDup == 0 && inOrder
                && endedOnce == expectedRequests;
    }

    interface Check {
        boolean holds() throws Exception;
    }

    private static void await(Check check, String what) throws Exception {
        for (int i = 0; i < 600; i++) {
            if (check.holds()) {
                return;
            }
            Thread.sleep(50);
        }
        System.out.println("timed out waiting: " + what);
    }
}
