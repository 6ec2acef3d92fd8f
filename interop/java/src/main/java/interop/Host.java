package interop;

import example.Transport;
import io.zlink.*;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The Java host of the interop run (docs/interop.md): examples/jvm's ZLinkSpotRuntime, adapted.
 * It owns Actors (each records the payloads it receives and answers requests with "re:" +
 * payload), moves frames over TCP ({@link Transport}) and asks zlink for every routing decision.
 * Everything runs on one event-loop thread; the main thread reads commands from stdin and hands
 * them to the loop.
 *
 * <p>{@code java interop.Host NAME RID REDIS_URL} (commands on stdin, answers on stdout).
 */
public final class Host implements AutoCloseable {
    final String name;
    final long rid;
    final ZlinkRuntime rt;
    final Transport transport;
    private final BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    private final Thread loop;
    private volatile boolean running = true;

    // Loop-thread state.
    final Map<String, List<String>> actors = new HashMap<>(); // id -> payloads (the state that moves)
    final Set<String> live = new HashSet<>(); // actors that run here now
    long seq;
    final Map<String, List<Long>> sent = new LinkedHashMap<>(Map.of("m", new ArrayList<>(), "q", new ArrayList<>(), "s", new ArrayList<>()));
    final Map<Long, String> asked = new HashMap<>(); // correlation -> request payload
    final Map<Long, List<Outcome>> outcomes = new HashMap<>();
    long delivered;
    long relayed;
    long notices;
    long stray;
    long held;
    final Map<String, Long> replied = new java.util.TreeMap<>(); // asking host -> requests answered here
    final List<String> events = new ArrayList<>();
    final List<String> errors = new ArrayList<>();

    Host(String name, long rid, LocationStore store) throws IOException {
        this.name = name;
        this.rid = rid;
        this.rt = ZlinkRuntime.builder(new NodeIdentity("interop", rid)).store(store).build();
        this.transport = new Transport(rid, inbox);
        this.loop = new Thread(this::run, "interop-" + name);
        this.loop.start();
    }

    /** Runs {@code work} on the event loop; its result. */
    <T> CompletableFuture<T> call(Supplier<T> work) {
        CompletableFuture<T> done = new CompletableFuture<>();
        inbox.add((Runnable) () -> {
            try {
                done.complete(work.get());
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private void run() {
        while (running) {
            try {
                long wait = rt.nextDeadline().isPresent()
                        ? Math.max(0, (rt.nextDeadline().getAsLong() - rt.now()) / 1_000_000) : 10;
                Object next = inbox.poll(Math.min(wait, 10), TimeUnit.MILLISECONDS);
                if (next instanceof Transport.Arrival a) {
                    handle(rt.onFrame(a.from(), a.frame()));
                } else if (next instanceof Runnable r) {
                    r.run();
                }
                tick();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                errors.add("error " + e);
            }
        }
    }

    private void tick() {
        if (rt.nextDeadline().isPresent() && rt.nextDeadline().getAsLong() <= rt.now()) {
            rt.onTimeout().forEach(this::handle);
        }
    }

    /** Carries a frame: to this node's own loop, or over TCP. */
    boolean carry(Outbound o) {
        if (o.to().rid() == rid) {
            return inbox.add(new Transport.Arrival(rid, o.bytes()));
        }
        return transport.send(o.to().rid(), o.bytes());
    }

    /** Does what one decision says. */
    void handle(Inbound d) {
        if (d instanceof Deliver deliver) {
            receive(deliver.operation());
        } else if (d instanceof Relay relay) {
            relayed++;
            carry(relay.forward());
            relay.notice().ifPresent(n -> rt.noticeSettled(n.token(), carry(n.outbound())));
        } else if (d instanceof Reject reject) {
            carry(reject.outbound());
        } else if (d instanceof Send send) {
            send.outbounds().forEach(this::carry);
        } else if (d instanceof Completed c) {
            outcomes.computeIfAbsent(c.completion().correlation(), k -> new ArrayList<>())
                    .add(c.completion().outcome());
        } else if (d instanceof SessionDeliver s) {
            if (s.relayKind().equals("Message")) {
                record(s.actor(), new String(s.payload(), StandardCharsets.UTF_8));
            }
        } else if (d instanceof RouteRefreshed) {
            notices++;
        } else if (d instanceof Relocation r) {
            relocation(r);
        } else if (d instanceof Held) {
            held++;
        } else if (!(d instanceof Bound || d instanceof Sealed)) {
            errors.add(d.toString());
        }
    }

    private boolean record(String actor, String payload) {
        if (!live.contains(actor)) {
            stray++;
            errors.add("delivered " + payload + " for " + actor + ", which does not run here");
            return false;
        }
        actors.get(actor).add(payload);
        delivered++;
        return true;
    }

    /** An operation for a local Actor: it records the payload and answers a request. */
    private void receive(Operation op) {
        String payload = new String(op.payload(), StandardCharsets.UTF_8);
        if (record(op.id(), payload) && op.isRequest()) {
            carry(rt.reply(op, ("re:" + payload).getBytes(StandardCharsets.UTF_8)));
            replied.merge(payload.split("\\|")[0], 1L, Long::sum);
        }
    }

    /** A relocation step: restore on the target, drop on the source, deliver what it hands over. */
    private void relocation(Relocation r) {
        RelocationEvent e = r.event();
        events.add(e.getClass().getSimpleName());
        String id = e.identity().id();
        if (e instanceof RelocationEvent.Restore restore) {
            String state = new String(restore.state(), StandardCharsets.UTF_8);
            actors.put(id, state.isEmpty() ? new ArrayList<>() : new ArrayList<>(Arrays.asList(state.split("\n"))));
            rt.relocationRestored(ObjectKind.ACTOR, id).forEach(this::carry);
        } else if ((e instanceof RelocationEvent.Committed || e instanceof RelocationEvent.Aborted)
                && actors.containsKey(id)) {
            live.add(id);
        } else if (e instanceof RelocationEvent.HandedOff || e instanceof RelocationEvent.Failed) {
            live.remove(id);
            actors.remove(id);
        }
        r.deliver().forEach(dl -> receive(dl.operation()));
        r.session().forEach(this::handle);
        r.send().forEach(this::carry);
        if (e instanceof RelocationEvent.CommitDue) {
            tick();
        }
        if (e instanceof RelocationEvent.Aborting || e instanceof RelocationEvent.Aborted
                || e instanceof RelocationEvent.Failed) {
            errors.add(e.toString());
        }
    }

    /** One command line; the fields of its answer. */
    String command(String[] w) {
        switch (w[0]) {
            case "peers" -> {
                for (int i = 1; i < w.length; i++) {
                    String[] p = w[i].split("=");
                    transport.peer(Long.parseLong(p[0]), Integer.parseInt(p[1]));
                }
                return "";
            }
            case "activate" -> {
                rt.activate(ObjectKind.ACTOR, w[1]);
                actors.put(w[1], new ArrayList<>());
                live.add(w[1]);
                return "";
            }
            case "send" -> {
                if (w.length > 3) {
                    throw new IllegalArgumentException("sessions are the Node host's");
                }
                send(w[1], Integer.parseInt(w[2]));
                return "";
            }
            case "move" -> {
                byte[] state = String.join("\n", actors.get(w[1])).getBytes(StandardCharsets.UTF_8);
                live.remove(w[1]);
                rt.beginRelocation(ObjectKind.ACTOR, w[1], Long.parseLong(w[2]), 1, List.of(), state)
                        .send().forEach(this::carry);
                return "";
            }
            case "status" -> {
                return ",\"owns\":" + live.contains(w[1]);
            }
            case "tally" -> {
                return tally(w[1]);
            }
            default -> throw new IllegalArgumentException("unknown command " + String.join(" ", w));
        }
    }

    private void send(String actor, int count) {
        for (int i = 0; i < count; i++) {
            long s = seq++;
            String kind = s % 3 == 2 ? "q" : "m";
            String payload = name + "|" + kind + "|" + s;
            byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
            SendResult r = kind.equals("q") ? rt.request(ObjectKind.ACTOR, actor, bytes) : rt.send(ObjectKind.ACTOR, actor, bytes);
            if (r instanceof Submitted sub && carry(sub.outbound())) {
                sent.get(kind).add(s);
                sub.correlation().ifPresent(c -> asked.put(c, payload));
            } else {
                errors.add("send " + payload + ": " + r);
            }
        }
    }

    private String tally(String actor) {
        long once = 0;
        long bad = 0;
        long pending = 0;
        for (Map.Entry<Long, String> a : asked.entrySet()) {
            List<Outcome> outs = outcomes.getOrDefault(a.getKey(), List.of());
            if (outs.size() == 1 && outs.get(0) instanceof Outcome.Reply reply
                    && new String(reply.payload(), StandardCharsets.UTF_8).equals("re:" + a.getValue())) {
                once++;
            } else if (!outs.isEmpty()) {
                bad++;
            } else {
                pending++;
            }
        }
        StringBuilder b = new StringBuilder(",\"sent\":{");
        sent.forEach((k, v) -> b.append(b.charAt(b.length() - 1) == '{' ? "" : ",").append(json(k)).append(":").append(v));
        b.append("},\"requests\":").append(asked.size()).append(",\"ended_once\":").append(once)
                .append(",\"bad\":").append(bad).append(",\"pending\":").append(pending)
                .append(",\"delivered\":").append(delivered).append(",\"relayed\":").append(relayed)
                .append(",\"notices\":").append(notices).append(",\"stray\":").append(stray)
                .append(",\"held\":").append(held).append(",\"replied\":{")
                .append(String.join(",", replied.entrySet().stream().map(e -> json(e.getKey()) + ":" + e.getValue()).toList()))
                .append("}")
                .append(",\"actor\":").append(live.contains(actor) ? jsonList(actors.get(actor)) : "null")
                .append(",\"events\":").append(jsonList(events)).append(",\"errors\":").append(jsonList(errors));
        return b.toString();
    }

    static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    static String jsonList(List<String> items) {
        return "[" + String.join(",", items.stream().map(Host::json).toList()) + "]";
    }

    @Override
    public void close() throws IOException {
        running = false;
        loop.interrupt();
        try {
            loop.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        transport.close();
        rt.close();
    }

    public static void main(String[] args) throws Exception {
        try (LocationStore store = new RedisStore(args[2]);
                Host host = new Host(args[0], Long.parseLong(args[1]), store)) {
            System.out.println("{\"ok\":true,\"port\":" + host.transport.port() + "}");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.trim().equals("quit"); line = in.readLine()) {
                String[] words = line.trim().split("\\s+");
                String answer;
                try {
                    answer = "{\"ok\":true" + host.call(() -> host.command(words)).get() + "}";
                } catch (ExecutionException e) {
                    answer = "{\"ok\":false,\"error\":" + json(String.valueOf(e.getCause())) + "}";
                }
                System.out.println(answer);
            }
            System.out.println("{\"ok\":true}");
        }
    }
}
