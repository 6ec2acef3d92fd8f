package example;

import io.zlink.Inbound;
import io.zlink.PeerDescriptor;
import io.zlink.PeerIntent;
import io.zlink.PeerReplacement;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The raw mesh node of one JVM MeshNode: the TCP connections to its manual object peers and the
 * listener its own peers dial (spec §2.3). It keeps no peer state of its own: zlink keeps, per
 * manual endpoint, the intent (the installed descriptor, or none for an endpoint-only intent),
 * the peer routing ID the handshake showed and the close state together, and this class tells it
 * what the transport sees ({@code peerOpened}, {@code peerClosed}), asks it where a node is
 * ({@code peerEndpoint}) and passes every frame a manual peer connection carries through its
 * admission fence ({@code onPeerFrame}). Only what is connection-shaped lives here: which socket
 * is the current one of an endpoint, so the close of a connection that was already replaced is
 * not reported as the close of the intent installed after it.
 *
 * <p>The wire: the dialer sends its routing ID (8 bytes); the listener answers with its routing
 * ID, its lifecycle generation (8 + 8 bytes) and its security identity (modified UTF-8); then
 * frames both ways, each a 4-byte big-endian length and the frame's bytes ({@link Transport}'s
 * framing). A dialer holding a descriptor refuses a handshake that does not show all four of its
 * values.
 *
 * <p>Every method but the reader and accept threads' runs on the owning {@link ZLinkSpotRuntime}'s
 * event loop; the threads only post events to it ({@link PeerFrame}, {@link PeerGone},
 * {@link Transport.Arrival}).
 */
final class ZLinkJavaRawMeshNode implements AutoCloseable {
    /** One TCP connection: dialed to a manual endpoint ({@code endpoint} set) or accepted. */
    static final class Link {
        final Socket socket;
        final DataOutputStream out;
        final String endpoint;
        final long peerRid;
        final long peerGeneration;
        final String peerSecurityIdentity;

        Link(Socket socket, String endpoint, long peerRid, long peerGeneration, String peerSecurityIdentity)
                throws IOException {
            this.socket = socket;
            this.out = new DataOutputStream(socket.getOutputStream());
            this.endpoint = endpoint;
            this.peerRid = peerRid;
            this.peerGeneration = peerGeneration;
            this.peerSecurityIdentity = peerSecurityIdentity;
        }

        synchronized boolean write(byte[] frame) {
            try {
                out.writeInt(frame.length);
                out.write(frame);
                out.flush();
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closed already
            }
        }
    }

    /** A frame that arrived on a dialed connection. */
    record PeerFrame(Link link, byte[] frame) {}

    /** A dialed connection ended (the transport's liveness event). */
    record PeerGone(Link link) {}

    private final ZLinkSpotRuntime node;
    private final String securityIdentity;
    private final ServerSocket server;
    /** Loop thread: the current dialed connection of each manual endpoint. */
    private final Map<String, Link> dialed = new HashMap<>();
    /** Accepted connections by the routing ID their dialer sent, with the generation they were answered under. */
    private final Map<Long, Link> accepted = new ConcurrentHashMap<>();
    private final Map<Link, Long> acceptedUnder = new ConcurrentHashMap<>();
    /** What the transport did, for the narration. */
    final List<String> log = new CopyOnWriteArrayList<>();
    /** Loop thread: the replacements {@code peerClosed} handed over (installed on a close). */
    final List<PeerDescriptor> installedOnClose = new ArrayList<>();

    ZLinkJavaRawMeshNode(ZLinkSpotRuntime node, String securityIdentity) throws IOException {
        this.node = node;
        this.securityIdentity = securityIdentity;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "mesh-accept-" + node.rid);
        accept.setDaemon(true);
        accept.start();
    }

    /** Where this node's peers dial it: what its descriptor publishes. */
    String endpoint() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    // ---- the manual-peer path of spec §2.3, each step delegated to io.zlink ----------------

    /**
     * At MeshNode start: registers a manually configured endpoint as an endpoint-only intent
     * ({@code addManualPeer}) and connects to it. The handshake's routing ID is reported
     * ({@code peerOpened}) but is no placement evidence: {@code peerEndpoint} names no node
     * through this intent, and {@code onPeerFrame} refuses its frames.
     */
    void addManualObjectPeer(String endpoint) {
        node.rt.addManualPeer(endpoint);
        try {
            Link link = dial(endpoint);
            dialed.put(endpoint, link);
            node.rt.peerOpened(endpoint, link.peerRid);
            log.add("dialed " + endpoint + " (endpoint-only intent): handshake showed rid " + link.peerRid);
        } catch (IOException e) {
            log.add("dial " + endpoint + " failed: " + e.getMessage());
        }
    }

    /**
     * Performs a replacement zlink handed out ({@code connectManualPeers}, {@code
     * ensureManualPeer} or {@code peerClosed}): the previous connection of the endpoint, if any,
     * is dropped (its intent was already replaced, so its close is not reported), and a new one
     * is dialed whose handshake must show all four descriptor values; then {@code peerOpened}.
     * The values come only from a {@link PeerReplacement}: nothing here sets a generation or a
     * security identity of its own. A dial that fails leaves the intent connecting (this example
     * does not dial again).
     */
    boolean replacePeerConnection(String endpoint, long rid, long lifecycleGeneration, String securityIdentity) {
        Link old = dialed.remove(endpoint);
        if (old != null) {
            old.close();
            log.add("dropped the previous connection to " + endpoint);
        }
        Link link;
        try {
            link = dial(endpoint);
        } catch (IOException e) {
            log.add("dial " + endpoint + " failed: " + e.getMessage());
            return false;
        }
        if (link.peerRid != rid || link.peerGeneration != lifecycleGeneration
                || !link.peerSecurityIdentity.equals(securityIdentity)) {
            link.close();
            log.add("handshake at " + endpoint + " showed rid " + link.peerRid + " generation "
                    + link.peerGeneration + " identity " + link.peerSecurityIdentity + ", not the descriptor's");
            return false;
        }
        dialed.put(endpoint, link);
        node.rt.peerOpened(endpoint, link.peerRid);
        log.add("replaced the connection to " + endpoint + ": rid " + rid + " generation " + lifecycleGeneration
                + " identity " + securityIdentity);
        return true;
    }

    /** {@link #replacePeerConnection} with the four values of {@code r}'s descriptor. */
    boolean replace(PeerReplacement r) {
        PeerDescriptor d = r.descriptor();
        return replacePeerConnection(d.endpoint(), d.rid(), d.lifecycleGeneration(), d.securityIdentity());
    }

    /**
     * The transport's liveness close of a dialed connection. The current connection of its
     * endpoint: {@code peerClosed}, and a replacement that was waiting for this close is
     * performed now. A connection already replaced: nothing to report.
     */
    void onGone(PeerGone gone) {
        Link link = gone.link();
        if (dialed.get(link.endpoint) != link) {
            return;
        }
        dialed.remove(link.endpoint);
        log.add("connection to " + link.endpoint + " closed");
        Optional<PeerReplacement> waiting = node.rt.peerClosed(link.endpoint);
        waiting.ifPresent(r -> {
            installedOnClose.add(r.descriptor());
            replace(r);
        });
    }

    /**
     * A frame on a dialed connection: through the admission fence ({@code onPeerFrame}). Empty
     * for a frame on a connection already replaced (dropped with it).
     */
    Optional<Inbound> onFrame(PeerFrame f) {
        if (dialed.get(f.link().endpoint) != f.link()) {
            return Optional.empty();
        }
        return Optional.of(node.rt.onPeerFrame(f.link().endpoint, f.frame()));
    }

    /** The intent, observed routing ID and close state zlink keeps for {@code endpoint}. */
    Optional<PeerIntent> intent(String endpoint) {
        return node.rt.peerIntent(endpoint);
    }

    /** Where node {@code rid} is reached: only through an installed descriptor. */
    Optional<String> endpointOf(long rid) {
        return node.rt.peerEndpoint(rid);
    }

    // ---- frames ---------------------------------------------------------------------------

    /** Whether this mesh node carries frames to node {@code rid}. */
    boolean reaches(long rid) {
        return endpointOf(rid).isPresent() || accepted.containsKey(rid);
    }

    /** Sends a frame to node {@code rid}: on the connection of its installed descriptor, or one it dialed here. */
    boolean send(long rid, byte[] frame) {
        Optional<String> endpoint = endpointOf(rid);
        Link link = endpoint.isPresent() ? dialed.get(endpoint.get()) : accepted.get(rid);
        return link != null && link.write(frame);
    }

    /** Closes the connections this node accepted while it ran as lifecycle {@code generation}. */
    int closeAcceptedUnder(long generation) {
        int n = 0;
        for (Map.Entry<Link, Long> e : acceptedUnder.entrySet()) {
            if (e.getValue() == generation) {
                e.getKey().close();
                n++;
            }
        }
        return n;
    }

    // ---- sockets --------------------------------------------------------------------------

    private Link dial(String endpoint) throws IOException {
        int colon = endpoint.lastIndexOf(':');
        Socket s = new Socket();
        s.connect(new InetSocketAddress(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1))),
                2_000);
        s.setTcpNoDelay(true);
        s.setSoTimeout(2_000);
        DataOutputStream o = new DataOutputStream(s.getOutputStream());
        o.writeLong(node.rid);
        o.flush();
        DataInputStream in = new DataInputStream(s.getInputStream());
        Link link = new Link(s, endpoint, in.readLong(), in.readLong(), in.readUTF());
        s.setSoTimeout(0);
        Thread reader = new Thread(() -> {
            try {
                while (true) {
                    byte[] frame = new byte[in.readInt()];
                    in.readFully(frame);
                    node.post(new PeerFrame(link, frame));
                }
            } catch (IOException e) {
                node.post(new PeerGone(link));
            }
        }, "mesh-read-" + node.rid);
        reader.setDaemon(true);
        reader.start();
        return link;
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            Thread reader = new Thread(() -> serve(s), "mesh-serve-" + node.rid);
            reader.setDaemon(true);
            reader.start();
        }
    }

    /** An accepted connection: the handshake answer, then its frames to the event loop. */
    private void serve(Socket s) {
        Link link = null;
        try (DataInputStream in = new DataInputStream(s.getInputStream())) {
            s.setTcpNoDelay(true);
            long from = in.readLong();
            long generation = node.generation;
            link = new Link(s, null, from, 0, "");
            synchronized (link) {
                // Known before the dialer sees the answer; no frame goes out ahead of the answer.
                accepted.put(from, link);
                acceptedUnder.put(link, generation);
                link.out.writeLong(node.rid);
                link.out.writeLong(generation);
                link.out.writeUTF(securityIdentity);
                link.out.flush();
            }
            while (true) {
                byte[] frame = new byte[in.readInt()];
                in.readFully(frame);
                node.post(new Transport.Arrival(from, frame));
            }
        } catch (IOException e) {
            // the connection closed
        } finally {
            if (link != null) {
                accepted.remove(link.peerRid, link);
                acceptedUnder.remove(link);
            }
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closed already
        }
        dialed.values().forEach(Link::close);
        accepted.values().forEach(Link::close);
    }
}
