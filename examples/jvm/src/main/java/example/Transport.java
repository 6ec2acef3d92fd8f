package example;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Frames between nodes over TCP on loopback. A connection starts with the connecting node's
 * routing ID (8 bytes); then each frame is a 4-byte big-endian length and the frame's bytes.
 * Frames that arrive are queued as {@link Arrival}s for the node's one event loop; frames to
 * send go on the connection to their node, opened on first use.
 */
public final class Transport implements AutoCloseable {
    /** A frame that arrived on the connection from node {@code from}. */
    public record Arrival(long from, byte[] frame) {}

    private final long self;
    private final ServerSocket server;
    private final BlockingQueue<Object> inbox;
    private final Map<Long, Integer> ports = new ConcurrentHashMap<>();
    private final Map<Long, DataOutputStream> out = new ConcurrentHashMap<>();

    public Transport(long self, BlockingQueue<Object> inbox) throws IOException {
        this.self = self;
        this.inbox = inbox;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "accept-" + self);
        accept.setDaemon(true);
        accept.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Where node {@code rid} listens. */
    public void peer(long rid, int port) {
        ports.put(rid, port);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                Thread reader = new Thread(() -> read(s), "read-" + self);
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void read(Socket s) {
        try (DataInputStream in = new DataInputStream(s.getInputStream())) {
            long from = in.readLong();
            while (true) {
                byte[] frame = new byte[in.readInt()];
                in.readFully(frame);
                inbox.put(new Arrival(from, frame));
            }
        } catch (IOException | InterruptedException e) {
            // the connection closed
        }
    }

    /** Sends one frame to node {@code to}; false if it cannot be reached. */
    public synchronized boolean send(long to, byte[] frame) {
        try {
            DataOutputStream o = out.get(to);
            if (o == null) {
                Integer port = ports.get(to);
                if (port == null) {
                    return false;
                }
                Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                s.setTcpNoDelay(true);
                o = new DataOutputStream(s.getOutputStream());
                o.writeLong(self);
                out.put(to, o);
            }
            o.writeInt(frame.length);
            o.write(frame);
            o.flush();
            return true;
        } catch (IOException e) {
            out.remove(to);
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
