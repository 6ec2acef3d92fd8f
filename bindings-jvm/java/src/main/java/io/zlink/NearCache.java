package io.zlink;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A runtime's near cache: the routes the core's cache gave it, kept in Java so that a hit of
 * {@link ZlinkRuntime#lookupCached} is answered without a JNI call, while the core stays the
 * only source of truth (issue 31; the rule is {@code bridge/src/near.rs}'s).
 *
 * <p>Every route the core caches falls in one of its 4,096 shards, and each shard has a change
 * epoch the core makes odd before it removes or replaces an entry of the shard and even after. An
 * entry here keeps the epoch its shard had before the core read the route, and its expiry; it is
 * served while that epoch still holds (one acquire read of the core's memory, through a direct
 * {@link ByteBuffer}) and the runtime's clock, plus a slack covering the core's coarse reading,
 * has not reached the expiry. So an entry is never served once the core would refuse it: the
 * change that makes the core refuse starts by moving the epoch. Anything else goes to the core,
 * whose answer refills the entry.
 *
 * <p>The clock: under a {@link ManualClock}, its word, read in place; under the system clock,
 * {@link System#nanoTime()} (CLOCK_MONOTONIC on Linux, as the core's clock) less an offset
 * measured once, when the cache is made, against the runtime's {@code now()}: the time before
 * that call, so the estimate is never behind the runtime's clock.
 *
 * <p>Bounded: at most the runtime's route cache capacity entries; an insert that finds it full
 * empties the cache first (cheap, and the next lookups refill it from the core). Near hits count
 * in {@code stats()}' {@code cache_hits}: each adds 1 to the core's host counter in place.
 *
 * <p>The native memory is freed by a {@link java.lang.ref.Cleaner} when this object is
 * unreachable; the buffers over it never leave this object, and every method that reads them
 * keeps it reachable until done.
 */
final class NearCache {
    /** Longs as words of a direct buffer, in the core's (the platform's) byte order. */
    private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.nativeOrder());

    /** Statuses of {@link Native#lookupNear}. */
    static final int KEEP = 2;
    static final int HIT = 1;
    static final int MISS = 0;
    static final int SLOW = -1;
    /** The numbers of one native answer: the route's 7, its expiry, shard and epoch. */
    static final int LONGS = 10;
    /** Per thread, one native answer. */
    private static final ThreadLocal<long[]> OUT = ThreadLocal.withInitial(() -> new long[LONGS]);

    /** A route the core gave, with what decides whether it may still be served. */
    static final class Entry {
        final ReadyRoute route;
        /** The route as {@code lookupCached} returns it, made once. */
        final Optional<ReadyRoute> some;
        /** When the core stops serving it (ns, the runtime clock), unsigned. */
        final long expiresAt;
        /** Where its shard's epoch is in the epochs buffer (bytes). */
        final int at;
        /** The shard's epoch before the core read the route (even). */
        final long epoch;
        /** The ID's length in UTF-8 bytes. */
        final int bytes;

        Entry(ReadyRoute route, long expiresAt, int at, long epoch, int bytes) {
            this.route = route;
            this.bytes = bytes;
            this.some = Optional.of(route);
            this.expiresAt = expiresAt;
            this.at = at;
            this.epoch = epoch;
        }
    }

    private final Handle memory;
    private final ByteBuffer epochs;
    private final ByteBuffer hits;
    /** The manual clock's word, or null under the system clock. */
    private final ByteBuffer manual;
    private final long slack;
    /** {@code System.nanoTime()} less this is the runtime clock (system clock only). */
    private final long offset;
    /** The longest ID (UTF-8 bytes) the core offers to near caches. */
    final int maxIdBytes;
    /** The hit counter's cells, a power of two, less one. */
    private final long cellMask;
    /** log2 of the bytes from one hit counter cell to the next. */
    private final int cellShift;
    private final long capacity;
    /**
     * The runtime's ID cap (bytes), as {@link ZlinkRuntime#updateConfig} last set it: an entry of
     * a longer ID is not served (the core would refuse the ID).
     */
    private volatile int idCap;
    /** The entries, one map per kind code. */
    private final ConcurrentHashMap<String, Entry>[] maps;

    /** The near cache of the runtime of handle {@code rt}. */
    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of maps
    NearCache(long rt) {
        long[] info = new long[8];
        long m = Native.nearMemory(rt, info);
        this.memory = new Handle(this, m, Native::nearMemoryFree);
        try {
            this.epochs = Native.nearBuffer(m, 0).asReadOnlyBuffer();
            this.hits = Native.nearBuffer(m, 1);
            ByteBuffer word = Native.nearBuffer(m, 2);
            this.manual = word == null ? null : word.asReadOnlyBuffer();
        } finally {
            Reference.reachabilityFence(this);
        }
        this.slack = info[0];
        this.maxIdBytes = (int) info[2];
        int cells = (int) info[4];
        int cellBytes = (int) info[5] * Long.BYTES;
        if (Integer.bitCount(cells) != 1 || Integer.bitCount(cellBytes) != 1) {
            throw new IllegalStateException("near hit counter: " + cells + " cells of " + cellBytes + " bytes");
        }
        this.cellMask = cells - 1;
        this.cellShift = Integer.numberOfTrailingZeros(cellBytes);
        this.capacity = Math.min(info[6], Integer.MAX_VALUE);
        this.idCap = (int) Math.min(info[7], Integer.MAX_VALUE);
        if (manual == null) {
            // Taken before the call: the runtime's clock read at some
            // instant after it, so nanoTime() - offset is never behind.
            long before = System.nanoTime();
            this.offset = before - Native.now(rt);
        } else {
            this.offset = 0;
        }
        int codes = 0;
        for (ObjectKind k : ObjectKind.values()) {
            codes = Math.max(codes, k.code() + 1);
        }
        this.maps = new ConcurrentHashMap[codes];
        for (int i = 0; i < codes; i++) {
            maps[i] = new ConcurrentHashMap<>();
        }
    }

    /** The runtime clock now, as the near cache reads it (ns). */
    long now() {
        return manual != null ? (long) WORD.getVolatile(manual, 0) : System.nanoTime() - offset;
    }

    /**
     * Whether {@code e} may be served now: its shard's epoch holds and it has not expired. The
     * clock is read after the epoch: not expired then, it was not when the epoch was read either.
     */
    private boolean fresh(Entry e) {
        return held(e) && unexpired(e, now());
    }

    /** Whether {@code e}'s shard has not changed since the core read it. */
    private boolean held(Entry e) {
        return (long) WORD.getAcquire(epochs, e.at) == e.epoch;
    }

    /** Whether {@code e} is still served at {@code now} (read after its epoch). */
    boolean unexpired(Entry e, long now) {
        return Long.compareUnsigned(now + slack, e.expiresAt) < 0;
    }

    /** Counts {@code n} near hits in the core's host counter, on this thread's cell. */
    void counted(long n) {
        long cell = Thread.currentThread().getId() & cellMask;
        WORD.getAndAdd(hits, (int) cell << cellShift, n);
    }

    /**
     * The entry of {@code id}, if it may be served now (counted as a hit), else null. The hot
     * path: it reads the map, the entry, one epoch and the clock, and nothing of the ID but its
     * cached hash (the map keeps the caller's String, so the same String compares by identity).
     */
    Entry get(int code, String id) {
        try {
            Entry e = maps[code].get(id);
            if (e != null && e.bytes <= idCap && fresh(e)) {
                counted(1);
                return e;
            }
            return null;
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * {@link #get} for a batch: the entry of {@code id} if its epoch holds, neither counted nor
     * checked against the clock; the caller reads the clock once, after every epoch of the
     * batch, checks each with {@link #unexpired} and counts the hits.
     */
    Entry held(int code, String id) {
        try {
            Entry e = maps[code].get(id);
            return e != null && e.bytes <= idCap && held(e) ? e : null;
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * After a miss of {@link #get}, the core's answer for an ID of at most {@link #maxIdBytes}
     * characters, kept if it may be: the route, empty if not cached, or null for the checked
     * path.
     */
    Optional<ReadyRoute> fill(long rt, String mesh, int code, String id) {
        long[] out = OUT.get();
        // Kept only as ASCII (one byte a character): see Native.lookupNear.
        return settle(code, id, id.length(), Native.lookupNear(rt, code, id, out), out, 0, mesh);
    }

    /** {@link #fill} for an interned key whose ID is at most {@link #maxIdBytes} bytes. */
    Optional<ReadyRoute> fill(long rt, String mesh, ObjectKey key) {
        int code = key.kind().code();
        long[] out = OUT.get();
        try {
            return settle(code, key.id(), key.utf8.length, Native.lookupNearKey(rt, key.handle.value, out), out, 0,
                    mesh);
        } finally {
            Reference.reachabilityFence(key);
        }
    }

    /**
     * What the core answered for {@code id} ({@code bytes} of UTF-8; {@code status}, and numbers at
     * {@code v[at..]}): the route, kept if it may be; empty if not cached; null for the checked
     * path.
     */
    Optional<ReadyRoute> settle(int code, String id, int bytes, int status, long[] v, int at, String mesh) {
        switch (status) {
            case KEEP: {
                ReadyRoute route = ZlinkRuntime.route(mesh, v, at);
                Entry e = new Entry(route, v[at + 7], (int) v[at + 8] * Long.BYTES, v[at + 9], bytes);
                keep(code, id, e);
                return e.some;
            }
            case HIT:
                forget(code, id);
                return Optional.of(ZlinkRuntime.route(mesh, v, at));
            case MISS:
                forget(code, id);
                return Optional.empty();
            default:
                return null;
        }
    }

    /** Keeps {@code e}; a full cache is emptied first. */
    private void keep(int code, String id, Entry e) {
        ConcurrentHashMap<String, Entry> map = maps[code];
        if (!map.containsKey(id) && size() >= capacity) {
            clear();
        }
        map.put(id, e);
    }

    /** Drops the entry of {@code id}, which the core no longer serves (or not as kept). */
    private void forget(int code, String id) {
        maps[code].remove(id);
    }

    /** Entries held. */
    long size() {
        long n = 0;
        for (var m : maps) {
            n += m.mappingCount();
        }
        return n;
    }

    /** The runtime's ID cap changed to {@code bytes}. */
    void idCap(long bytes) {
        idCap = (int) Math.min(bytes, Integer.MAX_VALUE);
    }

    /** Drops every entry (the runtime closed, or the cache is full). */
    void clear() {
        for (var m : maps) {
            m.clear();
        }
    }

    /** Near hits served so far (the host counter's sum), for tests. */
    long hits() {
        try {
            long n = 0;
            for (int c = 0; c <= cellMask; c++) {
                n += (long) WORD.getVolatile(hits, c << cellShift);
            }
            return n;
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
