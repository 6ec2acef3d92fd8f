package example;

import io.zlink.PeerReplacement;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The framework runtime of one JVM MeshNode, as far as manual object peers go (spec §2.3): at
 * start it registers every manually configured endpoint as an endpoint-only intent, and
 * {@link #connectManualObjectPeers} looks every one of them up in the Location Store. Both
 * delegate to {@code io.zlink} through the node's {@link ZLinkJavaRawMeshNode}, on the node's
 * event loop.
 */
final class ZLinkFrameworkRuntime {
    final ZLinkSpotRuntime node;

    private ZLinkFrameworkRuntime(ZLinkSpotRuntime node) {
        this.node = node;
    }

    /** MeshNode start: each of {@code manualEndpoints} an endpoint-only intent ({@code addManualPeer}). */
    static ZLinkFrameworkRuntime start(ZLinkSpotRuntime node, List<String> manualEndpoints)
            throws InterruptedException, ExecutionException, TimeoutException {
        node.call(() -> {
            manualEndpoints.forEach(node.mesh::addManualObjectPeer);
            return null;
        }).get(10, TimeUnit.SECONDS);
        return new ZLinkFrameworkRuntime(node);
    }

    /**
     * {@code connectManualObjectPeers}: the descriptor of every manual endpoint
     * ({@code connectManualPeers}); each replacement to perform now is performed with
     * {@code replacePeerConnection(endpoint, rid, lifecycleGeneration, securityIdentity)}.
     * Replacements of intents still open wait for their close and are not in the list.
     */
    List<PeerReplacement> connectManualObjectPeers() throws InterruptedException, ExecutionException, TimeoutException {
        return node.call(() -> {
            List<PeerReplacement> now = node.rt.connectManualPeers();
            now.forEach(node.mesh::replace);
            return now;
        }).get(10, TimeUnit.SECONDS);
    }
}
