package example;

import io.zlink.PeerDescriptor;
import io.zlink.PeerReplacement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connects MeshNodes to the object peers the Location Store describes, without being asked: one
 * {@link MeshNodeExecutor} per node runs a pass every period (spec §2.3).
 */
final class ZLinkLocationAutoConnectHost implements AutoCloseable {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "zlink-auto-connect");
        t.setDaemon(true);
        return t;
    });

    /** Starts auto-connecting {@code node}, a pass every {@code periodMs}. */
    MeshNodeExecutor start(ZLinkSpotRuntime node, long periodMs) {
        MeshNodeExecutor e = new MeshNodeExecutor(node);
        timer.scheduleWithFixedDelay(e::pass, 0, periodMs, TimeUnit.MILLISECONDS);
        return e;
    }

    /**
     * One MeshNode's auto-connect: each pass looks up the descriptor of every manual endpoint
     * ({@code connectManualPeersAsync}: the store read runs on a zlink runtime thread, never on
     * the node's event loop), then performs each replacement to perform now on the loop with
     * {@code replacePeerConnection(endpoint, rid, lifecycleGeneration, securityIdentity)}.
     */
    static final class MeshNodeExecutor {
        private final ZLinkSpotRuntime node;
        private final AtomicBoolean busy = new AtomicBoolean();
        final AtomicLong passes = new AtomicLong();
        /** The descriptors this executor found and connected. */
        final List<PeerDescriptor> connected = new CopyOnWriteArrayList<>();
        final List<String> failures = new CopyOnWriteArrayList<>();

        private MeshNodeExecutor(ZLinkSpotRuntime node) {
            this.node = node;
        }

        private void pass() {
            if (!busy.compareAndSet(false, true)) {
                return;
            }
            CompletableFuture<List<PeerReplacement>> lookup;
            try {
                lookup = node.rt.connectManualPeersAsync();
            } catch (RuntimeException e) {
                failures.add(e.toString());
                busy.set(false);
                return;
            }
            lookup.thenCompose(found -> node.call(() -> {
                for (PeerReplacement r : found) {
                    if (node.mesh.replace(r)) {
                        connected.add(r.descriptor());
                    }
                }
                return found;
            })).whenComplete((found, error) -> {
                passes.incrementAndGet();
                if (error != null) {
                    failures.add(error.toString());
                }
                busy.set(false);
            });
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
