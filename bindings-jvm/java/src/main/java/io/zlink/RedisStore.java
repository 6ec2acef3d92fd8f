package io.zlink;

import java.time.Duration;
import java.util.Objects;

/**
 * A Location Store on Redis ({@code redis://}, {@code rediss://}), a Redis Cluster ({@code
 * redis+cluster://h1:p1,h2:p2}) or the primary a group of Sentinels names ({@code
 * redis+sentinel://h1:p1,h2:p2/master-name}, {@code rediss+sentinel://}). Connecting blocks until
 * connected or timed out ({@link StoreException}).
 */
public final class RedisStore implements LocationStore {
    final Handle handle;
    private final String url;

    /** Connects with the default options. */
    public RedisStore(String url) {
        this(url, new Options());
    }

    /** Connects with {@code options}; each option not set keeps the core's default. */
    public RedisStore(String url, Options options) {
        this.url = Objects.requireNonNull(url, "url");
        Objects.requireNonNull(options, "options");
        long h = Native.storeRedis(url, options.prefix, millis(options.connectTimeout, "connectTimeout"),
                millis(options.responseTimeout, "responseTimeout"),
                millis(options.epochCheckInterval, "epochCheckInterval"),
                millis(options.tombstoneRetention, "tombstoneRetention"), options.threadConnections,
                mode(options.writeAcks), options.writeAcks instanceof WriteAcks.Replicas r ? r.n() : 0,
                millis(options.writeAckTimeout, "writeAckTimeout"));
        this.handle = new Handle(this, h, Native::storeFree);
    }

    private static long millis(Duration d, String what) {
        return d == null ? -1 : Utf8.millis(d, what);
    }

    /** The bridge's write acknowledgement mode number ({@code codes::WriteAcksMode}); -1: not set. */
    private static int mode(WriteAcks acks) {
        if (acks == null) {
            return -1;
        } else if (acks instanceof WriteAcks.AllReplicas) {
            return 1;
        } else if (acks instanceof WriteAcks.Replicas) {
            return 2;
        } else {
            return 3;
        }
    }

    /** Options of a Redis store; each one not set keeps the core's default. */
    public static final class Options {
        String prefix;
        Duration connectTimeout;
        Duration responseTimeout;
        Duration epochCheckInterval;
        Duration tombstoneRetention;
        int threadConnections = -1;
        WriteAcks writeAcks;
        Duration writeAckTimeout;

        /** The key prefix (default {@code "zlink"}). */
        public Options prefix(String prefix) {
            this.prefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /** How long connecting may take (default 2 s). */
        public Options connectTimeout(Duration d) {
            this.connectTimeout = Objects.requireNonNull(d, "connectTimeout");
            return this;
        }

        /** How long one command may take (default 2 s). */
        public Options responseTimeout(Duration d) {
            this.responseTimeout = Objects.requireNonNull(d, "responseTimeout");
            return this;
        }

        /** How often the store's epoch is checked (default 1 s). */
        public Options epochCheckInterval(Duration d) {
            this.epochCheckInterval = Objects.requireNonNull(d, "epochCheckInterval");
            return this;
        }

        /** How long a released object's tombstone is kept (default one hour). */
        public Options tombstoneRetention(Duration d) {
            this.tombstoneRetention = Objects.requireNonNull(d, "tombstoneRetention");
            return this;
        }

        /**
         * How many threads blocked in {@code resolve} may read one Redis server on a connection of
         * their own at a time (default 64; 0: none); the others read through the store's shared
         * connection. A thread's connection is given back when the thread ends.
         *
         * @throws IllegalArgumentException if {@code n} is negative
         */
        public Options threadConnections(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("threadConnections must be >= 0, got " + n);
            }
            this.threadConnections = n;
            return this;
        }

        /**
         * Which replicas must acknowledge each authority write before the store reports it done
         * (default {@link WriteAcks#allReplicas()}; one server without replicas waits for none). A
         * write not acknowledged in time fails with the store's {@code Timeout} kind (see {@link
         * WriteAcks}): its outcome is unknown, retry it (the same node's retry completes it). A
         * replica count below 1, or above what a primary of the deployment has, is a {@link
         * StoreException} of kind {@code Config} when the store is made.
         */
        public Options writeAcks(WriteAcks acks) {
            this.writeAcks = Objects.requireNonNull(acks, "writeAcks");
            return this;
        }

        /**
         * How long an authority write waits for its replicas' acknowledgement (default 1 s; more
         * than 0 unless {@link WriteAcks#primaryOnly()}); at most half of the response timeout is
         * used.
         */
        public Options writeAckTimeout(Duration d) {
            this.writeAckTimeout = Objects.requireNonNull(d, "writeAckTimeout");
            return this;
        }
    }

    @Override
    public void close() {
        handle.close();
    }

    @Override
    public String toString() {
        return "RedisStore(" + url + ")";
    }
}
