package io.zlink;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real redis-server child process on a free loopback port (installed by {@code make deps}),
 * owned by one test class: started, pinged until it answers, paused and resumed with signals,
 * killed at the end.
 */
final class RedisServer implements AutoCloseable {
    final int port;
    private final Process process;
    private final Path dir;

    RedisServer() throws IOException, InterruptedException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        dir = Files.createTempDirectory("zlink-redis");
        process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        for (int i = 0; i < 200; i++) {
            if (ping()) {
                return;
            }
            Thread.sleep(25);
        }
        process.destroyForcibly();
        throw new IOException("redis-server did not answer on port " + port);
    }

    String url() {
        return "redis://127.0.0.1:" + port;
    }

    private boolean ping() {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(500);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] b = new byte[7];
            return in.read(b) > 0 && new String(b, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    /** Client connections the server has open now (redis-cli's own included). */
    int connections() throws IOException, InterruptedException {
        Process cli = new ProcessBuilder("redis-cli", "-p", Integer.toString(port), "CLIENT", "LIST").start();
        String listed = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        cli.waitFor();
        return (int) listed.lines().filter(l -> l.startsWith("id=")).count();
    }

    /** Polls until the server has {@code n} connections (a closed one goes a moment later). */
    int connectionsBecome(int n) throws IOException, InterruptedException {
        long giveUp = System.nanoTime() + 5_000_000_000L;
        while (true) {
            int now = connections();
            if (now == n || System.nanoTime() > giveUp) {
                return now;
            }
            Thread.sleep(20);
        }
    }

    private void signal(String sig) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).inheritIO().start().waitFor();
    }

    /** Stops the server answering (SIGSTOP) until {@link #resume()}. */
    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    @Override
    public void close() {
        try {
            resume();
        } catch (IOException | InterruptedException e) {
            // best effort: the kill below ends it anyway
        }
        process.destroyForcibly();
    }
}
