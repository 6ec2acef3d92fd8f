package example;

import io.zlink.*;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A small Spot runtime that delegates every routing decision to zlink: it owns Actors (here, ones
 * that record what they receive and answer requests), moves frames over TCP ({@link Transport}),
 * and for every frame that arrives asks {@link ZlinkRuntime#onFrame} what to do. Relocation is
 * the runtime's handoff: the host only captures and restores an Actor's state. Everything a node
 * does runs on its one event loop thread, so Actors need no locks.
 *
 * <p>Manual object peers (spec §2.3): {@link #mesh} is the node's {@link ZLinkJavaRawMeshNode}
 * (the connections to manual endpoints, the admission fence on their frames), {@link
 * #ensureManualObjectPeer} looks one endpoint's descriptor up, and {@link #restart} starts the
 * node again under a new lifecycle generation over the same transport.
 */
final class ZLinkSpotRuntime implements AutoCloseable {
    /** An Actor: what it received (payloads, in order). Its state moves with it. */
    static final class Actor {
        final List<String> seen = new ArrayList<>();

        byte[] capture() {
            return String.join("\n", seen).getBytes(StandardCharsets.UTF_8);
        }

        static Actor restore(byte[] state) {
            Actor a = new Actor();
            String s = new String(state, StandardCharsets.UTF_8);
            if (!s.isEmpty()) {
                a.seen.addAll(Arrays.asList(s.split("\n")));
            }
            return a;
        }
    }

    final long rid;
    final LocationStore store;
    /** The runtime of the node's current lifecycle generation ({@link #restart} replaces it). */
    volatile ZlinkRuntime rt;
    volatile long generation;
    final Transport transport;
    final ZLinkJavaRawMeshNode mesh;
    private final BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    private final Thread loop;
    private volatile boolean running = true;

    // Loop-thread state.
    final Map<String, Actor> actors = new HashMap<>();
    final Map<Long, List<Outcome>> completions = new HashMap<>();
    final List<String> events = new ArrayList<>();
    long delivered;
    long relayed;
    long sendFailures;
    /** Frames a manual peer connection's admission fence refused ({@link PeerRefused}). */
    long peerRefused;

    ZLinkSpotRuntime(long rid, LocationStore store) throws IOException {
        this(rid, 1, store, "node-" + rid + ".demo");
    }

    /** Node {@code rid} at lifecycle {@code generation}; its peers' handshakes show {@code securityIdentity}. */
    ZLinkSpotRuntime(long rid, long generation, LocationStore store, String securityIdentity) throws IOException {
        this.rid = rid;
        this.store = store;
        this.generation = generation;
        this.rt = ZlinkRuntime.builder(new NodeIdentity("demo", rid, generation, 1)).store(store).build();
        this.transport = new Transport(rid, inbox);
        this.mesh = new ZLinkJavaRawMeshNode(this, securityIdentity);
        this.loop = new Thread(this::run, "zlink-spot-" + rid);
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

    /** Queues a transport event for the event loop. */
    void post(Object event) {
        inbox.add(event);
    }

    private void run() {
        while (running) {
            try {
                long wait = rt.nextDeadline().isPresent()
                        ? Math.max(0, (rt.nextDeadline().getAsLong() - rt.now()) / 1_000_000) : 10;
                Object next = inbox.poll(Math.min(wait, 10), TimeUnit.MILLISECONDS);
                if (next instanceof Transport.Arrival a) {
                    handle(rt.onFrame(a.from(), a.frame()));
                } else if (next instanceof ZLinkJavaRawMeshNode.PeerFrame f) {
                    mesh.onFrame(f).ifPresent(this::handle);
                } else if (next instanceof ZLinkJavaRawMeshNode.PeerGone g) {
                    mesh.onGone(g);
                } else if (next instanceof Runnable r) {
                    r.run();
                }
                if (rt.nextDeadline().isPresent() && rt.nextDeadline().getAsLong() <= rt.now()) {
                    rt.onTimeout().forEach(this::handle);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                events.add("error " + e);
            }
        }
    }

    /** Carries a frame: to this node's own loop, to a mesh peer, or over TCP. */
    boolean carry(Outbound o) {
        if (o.to().rid() == rid) {
            return inbox.add(new Transport.Arrival(rid, o.bytes()));
        }
        boolean sent = mesh.reaches(o.to().rid()) ? mesh.send(o.to().rid(), o.bytes())
                : transport.send(o.to().rid(), o.bytes());
        if (!sent) {
            sendFailures++;
        }
        return sent;
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
            completions.computeIfAbsent(c.completion().correlation(), k -> new ArrayList<>())
                    .add(c.completion().outcome());
        } else if (d instanceof SessionDeliver s) {
            Actor a = actors.get(s.actor());
            if (a != null && s.relayKind().equals("Message")) {
                a.seen.add(new String(s.payload(), StandardCharsets.UTF_8));
                delivered++;
            }
        } else if (d instanceof Relocation r) {
            relocation(r);
        } else if (d instanceof PeerRefused) {
            peerRefused++;
        } else {
            events.add(d.getClass().getSimpleName());
        }
    }

    /** An operation for a local Actor: it records the payload and answers a request. */
    private void receive(Operation op) {
        Actor a = actors.get(op.id());
        if (a == null) {
            events.add("no actor " + op.id());
            return;
        }
        String payload = new String(op.payload(), StandardCharsets.UTF_8);
        a.seen.add(payload);
        delivered++;
        if (op.isRequest()) {
            carry(rt.reply(op, ("re:" + payload).getBytes(StandardCharsets.UTF_8)));
        }
    }

    /** A relocation step: restore on the target, drop on the source, deliver what it hands over. */
    private void relocation(Relocation r) {
        RelocationEvent e = r.event();
        events.add("Relocation." + e.getClass().getSimpleName());
        String id = e.identity().id();
        if (e instanceof RelocationEvent.Restore restore) {
            actors.put(id, Actor.restore(restore.state()));
            rt.relocationRestored(ObjectKind.ACTOR, id).forEach(this::carry);
        } else if (e instanceof RelocationEvent.HandedOff || e instanceof RelocationEvent.Failed) {
            actors.remove(id);
        }
        r.deliver().forEach(dl -> receive(dl.operation()));
        r.session().forEach(this::handle);
        r.send().forEach(this::carry);
    }

    /** Activates an Actor here. */
    void activate(String id) {
        rt.activate(ObjectKind.ACTOR, id);
        actors.put(id, new Actor());
    }

    /** Starts moving an Actor to node {@code target}: its state goes with it. */
    void move(String id, long target) {
        Actor a = actors.get(id);
        RelocationStarted started = rt.beginRelocation(ObjectKind.ACTOR, id, target, 1, List.of(), a.capture());
        started.send().forEach(this::carry);
    }

    /**
     * {@code ensureManualObjectPeer}: registers {@code endpoint} if needed and looks its
     * descriptor up ({@code ensureManualPeer}); a replacement to perform now is performed
     * ({@link ZLinkJavaRawMeshNode#replacePeerConnection}). Empty when there is no descriptor,
     * it is installed already, or it waits for the installed intent to close.
     */
    Optional<PeerReplacement> ensureManualObjectPeer(String endpoint) {
        Optional<PeerReplacement> r = rt.ensureManualPeer(endpoint);
        r.ifPresent(mesh::replace);
        return r;
    }

    /**
     * Starts this node again as lifecycle {@code generation}: a new runtime, no Actors, the same
     * transport (connections stay up; {@link ZLinkJavaRawMeshNode} answers new handshakes with
     * the new generation).
     */
    void restart(long generation) {
        ZlinkRuntime old = rt;
        rt = ZlinkRuntime.builder(new NodeIdentity("demo", rid, generation, 1)).store(store).build();
        this.generation = generation;
        actors.clear();
        old.close();
    }

    /** Sends a message (or a request) to an Actor by global ID; whether it left. */
    boolean send(String id, String payload, boolean request) {
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        SendResult r = request ? rt.request(ObjectKind.ACTOR, id, bytes) : rt.send(ObjectKind.ACTOR, id, bytes);
        if (r instanceof Submitted s) {
            return carry(s.outbound());
        }
        events.add("send " + payload + ": " + r);
        return false;
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
        mesh.close();
        transport.close();
        rt.close();
    }
}
