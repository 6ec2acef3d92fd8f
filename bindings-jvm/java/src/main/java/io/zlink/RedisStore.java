package io.zlink;

import java.time.Duration;
import java.util.Objects;

/**
 * A Location Store on Redis ({@code redis://}, {@code rediss://}) or a Redis Cluster ({@code
 * redis+cluster://h1:p1,h2:p2}). Connecting blocks until connected or timed out ({@link
 * StoreException}).
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
                millis(options.tombstoneRetention, "tombstoneRetention"), options.threadConnections);
        this.handle = new Handle(this, h, Native::storeFree);
    }

    private static long millis(Duration d, String what) {
        return d == null ? -1 : Utf8.millis(d, what);
    }

    /** Options of a Redis store; each one not set keeps the core's default. */
    public static final class Options {
        String prefix;
        Duration connectTimeout;
        Duration responseTimeout;
        Duration epochCheckInterval;
        Duration tombstoneRetention;
        int threadConnections = -1;

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
