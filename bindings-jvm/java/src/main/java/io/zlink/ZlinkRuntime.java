package io.zlink;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The routing core of one MeshNode: resolves global IDs, decides what to do with every frame,
 * runs relocations and sessions. Thread-safe: share one per process. Built with {@link
 * #builder(NodeIdentity)}; closed by {@link #close()} (or, if forgotten, when collected). Any
 * call after close throws a {@link ZlinkClosedException}; a close racing calls on other threads
 * waits for them to finish.
 *
 * <p>Calls that may reach the Location Store block the calling thread (bounded by the config's
 * store timeout); each has a {@code ...Async} form returning a {@link CompletableFuture}
 * completed from a runtime thread, so the caller never blocks. Cache-only calls never block.
 *
 * <p>Bad input is an exception from the call itself, in the {@code ...Async} forms too: a null
 * argument a {@link NullPointerException}, anything the runtime refuses (an empty or too long ID,
 * a payload over the message bound, a zero deadline, ...) a {@link ZlinkInputException}, and a
 * call after {@link #close()} a {@link ZlinkClosedException}, thrown before any work starts. A
 * future completes with the call's result or fails with the runtime's own outcome of the work (a
 * {@link StoreException}, a {@link LifecycleException} refusing a write, ...).
 *
 * <h2>The host loop</h2>
 *
 * <p>The runtime decides; the host moves the bytes and does what each decision says. Three duties
 * are the host's alone, and nothing fails loudly when one is missed:
 *
 * <ol>
 *   <li><b>The sender of every frame.</b> {@link #onFrame(long, byte[]) onFrame(fromNode, frame)}
 *       takes the routing ID of the node at the other end of the connection the frame arrived on:
 *       what the transport knows (its handshake), never a number read from the frame. A frame
 *       whose last sender is not {@code fromNode} is refused as {@link ForeignSender}.
 *   <li><b>Every relay notice, settled.</b> A {@link Relay} says: carry {@link Relay#forward()} to
 *       the new owner, and if {@link Relay#notice()} is present, carry its {@link
 *       Notice#outbound()} (command 50) to the original sender and then call {@link
 *       #noticeSettled(NoticeToken, boolean) noticeSettled(notice.token(), sent)}, {@code sent}
 *       saying whether the transport took it. Until then the notice counts as in flight and no
 *       other is sent for that sender and route: the sender keeps its stale route and every
 *       message it sends takes the detour until its cache expires. After {@code false}, a later
 *       relay notifies again.
 *   <li><b>The timers, and at once after {@code CommitDue}.</b> Call {@link #onTimeout()}
 *       whenever {@link #nextDeadline()} is due (request timeouts, relocation and Session steps,
 *       the re-reads after a store recovery end there), and right after handling a {@link Relocation}
 *       whose event is {@link RelocationEvent.CommitDue}: the move's owner CAS is due now, the
 *       call starts it (never waiting for the store), and that call or a later one returns {@link
 *       RelocationEvent.Committed}. Without it the move never commits.
 * </ol>
 *
 * <pre>{@code
 * // The transport received bytes on the connection to node peerRid:
 * handle(rt.onFrame(peerRid, bytes));
 * // The loop's sleep ends at rt.nextDeadline() (runtime clock, ns; rt.now() is now):
 * rt.onTimeout().forEach(this::handle);
 *
 * void handle(Inbound d) {
 *     if (d instanceof Deliver x) {
 *         enqueue(x.operation());                         // later rt.reply(op, ...) if a request
 *     } else if (d instanceof Relay r) {
 *         carry(r.forward());
 *         r.notice().ifPresent(n -> rt.noticeSettled(n.token(), carry(n.outbound())));
 *     } else if (d instanceof Reject x) {
 *         carry(x.outbound());
 *     } else if (d instanceof Send x) {
 *         x.outbounds().forEach(this::carry);
 *     } else if (d instanceof Relocation r) {
 *         // Restore: rebuild, then rt.relocationRestored(..); HandedOff: drop the object; then
 *         r.deliver().forEach(x -> enqueue(x.operation()));
 *         r.session().forEach(this::handle);
 *         r.send().forEach(this::carry);
 *         if (r.event() instanceof RelocationEvent.CommitDue) {
 *             rt.onTimeout().forEach(this::handle);       // the owner CAS is due now
 *         }
 *     } else if (d instanceof Completed c) { ... }        // and every other Inbound case
 * }
 * }</pre>
 *
 * <p>The tests' {@code HostLoopTest} is this loop in full, on three nodes.
 */
public final class ZlinkRuntime implements AutoCloseable {
    final Handle handle;
    /** This node's mesh: the mesh of the routes the fast path returns. */
    private final String mesh;
    /** Per thread, the numbers of one route (the fast path's out-parameter). */
    private static final ThreadLocal<long[]> ROUTE = ThreadLocal.withInitial(() -> new long[7]);
    /**
     * The near cache, answering cache hits without a JNI call ({@link NearCache}); null if the
     * builder turned it off, and once closed, so that later calls take the native path, which
     * throws.
     */
    private volatile NearCache near;
    private final Object configLock = new Object();

    private ZlinkRuntime(long handle, String mesh, boolean nearCache) {
        this.handle = new Handle(this, handle, Native::runtimeFree);
        this.mesh = mesh;
        if (nearCache) {
            try {
                this.near = new NearCache(handle);
            } finally {
                Reference.reachabilityFence(this);
            }
        }
    }

    /** A builder of the runtime of node {@code identity}. */
    public static Builder builder(NodeIdentity identity) {
        return new Builder(identity);
    }

    /** What a runtime is built from; each part not given keeps its default. */
    public static final class Builder {
        private final NodeIdentity identity;
        private RoutingConfig config;
        private LocationStore store;
        private Clock clock;
        private int workerThreads;
        private boolean nearCache = true;

        private Builder(NodeIdentity identity) {
            this.identity = Objects.requireNonNull(identity, "identity");
        }

        /** The routing config (default: {@link RoutingConfig#defaults()}). */
        public Builder config(RoutingConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** The store shared with other runtimes (default: a private {@link MemoryStore}). */
        public Builder store(LocationStore store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /** The clock (default: the system's). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Threads of the store I/O pool (default 1). */
        public Builder workerThreads(int n) {
            if (n < 1) {
                throw new ZlinkInputException("workerThreads must be >= 1, got " + n, "OutOfRange", null);
            }
            this.workerThreads = n;
            return this;
        }

        /**
         * Whether cache hits are answered by a near cache in Java, without a JNI call (default
         * true; see {@code docs/jvm.md}, "The near cache"). Off, every lookup calls into the
         * library; the answers are the same.
         */
        public Builder nearCache(boolean enabled) {
            this.nearCache = enabled;
            return this;
        }

        /** Starts the runtime. */
        public ZlinkRuntime build() {
            try {
                long h = Native.runtimeNew(identity.mesh(), identity.rid(), identity.generation(),
                        identity.lease(), config == null ? null : config.values(),
                        store == null ? 0 : Handle.of(store), clock == null ? 0 : Handle.of(clock),
                        workerThreads);
                return new ZlinkRuntime(h, identity.mesh(), nearCache);
            } finally {
                Reference.reachabilityFence(store);
                Reference.reachabilityFence(clock);
            }
        }
    }

    private static byte[] id(String id) {
        return Utf8.of(id, "id");
    }

    private static int kind(ObjectKind kind) {
        return Objects.requireNonNull(kind, "kind").code();
    }

    /**
     * Stops the runtime: later calls throw {@link ZlinkClosedException}, calls running on other
     * threads finish first, then pending asynchronous completions, then its threads stop. Closing
     * twice is allowed. Not allowed inside a completion of one of its own futures.
     */
    @Override
    public void close() {
        try {
            // Asked before the handle is given up: a refused close leaves
            // the runtime open and closable later.
            Native.runtimeMayClose(handle.value);
        } finally {
            Reference.reachabilityFence(this);
        }
        NearCache n = near;
        near = null;
        if (n != null) {
            n.clear();
        }
        handle.close();
    }

    // ---- 1-3: identity and config ---------------------------------------

    /** This node. */
    public NodeIdentity identity() {
        try {
            return Decoder.read(Native.identity(handle.value), Decoder::identity);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The config in force. */
    public RoutingConfig config() {
        try {
            return new RoutingConfig(Native.config(handle.value));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Replaces the config (the cache's capacity stays). */
    public void updateConfig(RoutingConfig config) {
        Objects.requireNonNull(config, "config");
        try {
            // One update at a time, so the near cache's ID cap (the one
            // setting a cache hit checks) ends as the core's.
            synchronized (configLock) {
                Native.updateConfig(handle.value, config.values());
                NearCache n = near;
                if (n != null) {
                    n.idCap(config.maxObjectIdBytes());
                }
            }
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    // ---- 4-6: resolution --------------------------------------------------

    /**
     * Resolves a global ID: a recent cached route, else the store (blocking, bounded by the
     * store timeout). Never throws for a routing outcome: {@link ReadyRoute}, {@link Missing},
     * {@link Unavailable} or {@link StoreFailure}.
     */
    public Resolution resolve(ObjectKind kind, String id) {
        try {
            int k = kind(kind);
            Optional<ReadyRoute> hit = near(k, id);
            if (hit != null) {
                if (hit.isPresent()) {
                    return hit.get();
                }
            } else if (!nearTried(id)) {
                long[] out = ROUTE.get();
                if (fast(k, id, out) == 1) {
                    return route(out, 0);
                }
            }
            return Decoder.read(Native.resolve(handle.value, k, id(id)), Decoder::resolution);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * {@link #resolve} for many IDs of one kind in one native call (a miss reads the store,
     * blocking): element {@code i} is the result for {@code ids[i]}.
     */
    public Resolution[] resolveMany(ObjectKind kind, String... ids) {
        Objects.requireNonNull(ids, "ids");
        var all = new java.io.ByteArrayOutputStream();
        long[] ends = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            all.writeBytes(id(ids[i]));
            ends[i] = all.size();
        }
        try {
            byte[] out = Native.resolveMany(handle.value, kind(kind), all.toByteArray(), ends);
            return Decoder.read(out, d -> d.list(d::resolution)).toArray(new Resolution[0]);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * {@link #resolve} without blocking: the future completes from a runtime thread (a cache hit
     * too). Bad input throws here, as from {@link #resolve}: the future only carries the
     * resolution.
     *
     * @throws ZlinkInputException the ID is empty, over the cap or not valid Unicode
     * @throws NullPointerException an argument is null
     */
    public CompletableFuture<Resolution> resolveAsync(ObjectKind kind, String id) {
        int k = kind(kind);
        byte[] utf8 = id(id);
        return started(raw -> Native.resolveAsync(handle.value, k, utf8, raw),
                bytes -> Decoder.read(bytes, Decoder::resolution));
    }

    /**
     * Cache only: a recent route, never blocking, never reading the store. A route the runtime's
     * near cache holds and may still serve is answered in Java, with no native call and no
     * allocation (see {@code docs/jvm.md}, "The near cache").
     */
    public Optional<ReadyRoute> lookupCached(ObjectKind kind, String id) {
        try {
            int k = kind(kind);
            Optional<ReadyRoute> answer = near(k, id);
            if (answer != null) {
                return answer;
            }
            if (!nearTried(id)) {
                long[] out = ROUTE.get();
                int status = fast(k, id, out);
                if (status == 1) {
                    return Optional.of(route(out, 0));
                }
                if (status == 0) {
                    return Optional.empty();
                }
            }
            byte[] hit = Native.lookupCached(handle.value, kind(kind), id(id));
            return hit == null ? Optional.empty() : Optional.of(Decoder.read(hit, Decoder::readyRoute));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Runs a blocking call on a runtime thread: the future completes from that thread with the
     * result or the call's exception. The caller never blocks; a closed runtime throws here. For
     * the calls with no asynchronous entry point of their own, those with no argument to check.
     */
    private <T> CompletableFuture<T> async(Supplier<T> call) {
        CompletableFuture<T> future = new CompletableFuture<>();
        try {
            Native.spawn(handle.value, () -> {
                try {
                    future.complete(call.get());
                } catch (Throwable t) {
                    future.completeExceptionally(t);
                }
            });
        } finally {
            Reference.reachabilityFence(this);
        }
        return future;
    }

    /**
     * Starts an asynchronous native call: {@code start} hands its entry point the future it
     * settles from a runtime thread, with the result's bytes (read by {@code result}) or with the
     * exception the blocking form would throw. The entry point reads and checks the arguments
     * (the bridge's and the core's own checks) before it starts the work: bad input and a closed
     * runtime throw from {@code start}, here, and the future carries only the work's outcome.
     */
    private <T> CompletableFuture<T> started(Consumer<CompletableFuture<byte[]>> start, Function<byte[], T> result) {
        CompletableFuture<byte[]> raw = new CompletableFuture<>();
        CompletableFuture<T> future = new CompletableFuture<>();
        raw.whenComplete((bytes, failure) -> {
            if (failure != null) {
                future.completeExceptionally(failure);
                return;
            }
            try {
                future.complete(result.apply(bytes));
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        });
        try {
            start.accept(raw);
        } finally {
            Reference.reachabilityFence(this);
        }
        return future;
    }

    // ---- 7-13: operations, frames, replies, timers ------------------------

    private static byte[] payload(byte[] payload) {
        return Objects.requireNonNull(payload, "payload");
    }

    /** Sends a one-way message by global ID, with the default options. */
    public SendResult send(ObjectKind kind, String id, byte[] payload) {
        return send(kind, id, payload, SendOptions.DEFAULT);
    }

    /**
     * Sends a one-way message by global ID: {@link Submitted} (carry its outbound), {@link
     * NotFound}, {@link ColdActivation}, {@link Unavailable} or {@link StoreFailure}. A cache miss
     * reads the store (blocking).
     */
    public SendResult send(ObjectKind kind, String id, byte[] payload, SendOptions options) {
        Objects.requireNonNull(options, "options");
        try {
            return Decoder.read(Native.send(handle.value, kind(kind), id(id), payload(payload),
                    options.instanceIntent(), options.deadlineMs()), Decoder::sent);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@link #send(ObjectKind, String, byte[], SendOptions)} with the payload's remaining bytes. */
    public SendResult send(ObjectKind kind, String id, ByteBuffer payload, SendOptions options) {
        return send(kind, id, Utf8.of(payload, "payload"), options);
    }

    /** {@link #send(ObjectKind, String, byte[])} on a runtime thread; bad input throws here. */
    public CompletableFuture<SendResult> sendAsync(ObjectKind kind, String id, byte[] payload) {
        return sendAsync(kind, id, payload, SendOptions.DEFAULT);
    }

    /**
     * {@link #send(ObjectKind, String, byte[], SendOptions)} on a runtime thread. The arguments
     * are checked here, as {@code send} checks them: the future carries the {@link SendResult}.
     *
     * @throws ZlinkInputException bad input (an empty or too long ID, a payload over the message
     *     bound, a zero or negative deadline, instance intent on an Actor)
     * @throws NullPointerException an argument is null
     */
    public CompletableFuture<SendResult> sendAsync(ObjectKind kind, String id, byte[] payload, SendOptions options) {
        Objects.requireNonNull(options, "options");
        int k = kind(kind);
        byte[] utf8 = id(id);
        payload(payload);
        return started(raw -> Native.sendAsync(handle.value, k, utf8, payload, options.instanceIntent(),
                options.deadlineMs(), raw), bytes -> Decoder.read(bytes, Decoder::sent));
    }

    /** Sends a request with the default options. */
    public SendResult request(ObjectKind kind, String id, byte[] payload) {
        return request(kind, id, payload, SendOptions.DEFAULT);
    }

    /**
     * Sends a request: as {@link #send}, and a {@link Submitted} carries the correlation its one
     * terminal {@link Completion} will carry (from {@link #onFrame}, {@link #cancel}, {@link
     * #onTimeout} or {@link #shutdownRequests}).
     */
    public SendResult request(ObjectKind kind, String id, byte[] payload, SendOptions options) {
        Objects.requireNonNull(options, "options");
        byte[] origin = options.origin().map(o -> id(o.spot())).orElse(null);
        long originGeneration = options.origin().map(SpotExecution::objectGeneration).orElse(0L);
        try {
            return Decoder.read(Native.request(handle.value, kind(kind), id(id), payload(payload),
                    options.instanceIntent(), options.deadlineMs(), options.timeoutMs(), origin,
                    originGeneration), Decoder::sent);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@link #request(ObjectKind, String, byte[], SendOptions)} with the payload's remaining bytes. */
    public SendResult request(ObjectKind kind, String id, ByteBuffer payload, SendOptions options) {
        return request(kind, id, Utf8.of(payload, "payload"), options);
    }

    /** {@link #request(ObjectKind, String, byte[])} on a runtime thread; bad input throws here. */
    public CompletableFuture<SendResult> requestAsync(ObjectKind kind, String id, byte[] payload) {
        return requestAsync(kind, id, payload, SendOptions.DEFAULT);
    }

    /**
     * {@link #request(ObjectKind, String, byte[], SendOptions)} on a runtime thread. The
     * arguments are checked here, as {@code request} checks them: the future carries the {@link
     * SendResult}.
     *
     * @throws ZlinkInputException bad input (as {@link #sendAsync(ObjectKind, String, byte[],
     *     SendOptions)}, and a zero or negative timeout, a bad origin Spot ID)
     * @throws NullPointerException an argument is null
     */
    public CompletableFuture<SendResult> requestAsync(ObjectKind kind, String id, byte[] payload, SendOptions options) {
        Objects.requireNonNull(options, "options");
        byte[] origin = options.origin().map(o -> id(o.spot())).orElse(null);
        long originGeneration = options.origin().map(SpotExecution::objectGeneration).orElse(0L);
        int k = kind(kind);
        byte[] utf8 = id(id);
        payload(payload);
        return started(raw -> Native.requestAsync(handle.value, k, utf8, payload, options.instanceIntent(),
                options.deadlineMs(), options.timeoutMs(), origin, originGeneration, raw),
                bytes -> Decoder.read(bytes, Decoder::sent));
    }

    /**
     * Decides what to do with one frame that arrived on the connection to node {@code fromNode}.
     * Never waits on the store: a relocation's store write runs on the store's I/O and its outcome
     * comes from a later {@link #onTimeout} (after {@link RelocationEvent.CommitDue}: call it at
     * once). Do what the decision says (see "The host loop" above): a {@link Relay}'s notice must
     * be settled with {@link #noticeSettled}.
     *
     * @param fromNode the routing ID of the node at the other end of the connection the frame
     *     arrived on: the peer the transport connected to (for a relayed frame, the relayer, not
     *     the operation's origin). Never a number read from the frame, never this node's own:
     *     a frame whose last sender is not {@code fromNode} is refused as {@link ForeignSender},
     *     nothing in it acted on.
     * @param frame the bytes as they arrived
     * @return what to do: {@link Deliver}, {@link Relay}, {@link Send}, {@link Relocation}, ...
     */
    public Inbound onFrame(long fromNode, byte[] frame) {
        Objects.requireNonNull(frame, "frame");
        try {
            return Decoder.read(Native.onFrame(handle.value, fromNode, frame), Decoder::inbound);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * {@link #onFrame} on a runtime thread ({@code fromNode} as there: the routing ID of the
     * connection the frame came on). A null or over-long frame throws here.
     */
    public CompletableFuture<Inbound> onFrameAsync(long fromNode, byte[] frame) {
        Objects.requireNonNull(frame, "frame");
        return started(raw -> Native.onFrameAsync(handle.value, fromNode, frame, raw),
                bytes -> Decoder.read(bytes, Decoder::inbound));
    }

    /** Answers a delivered request with {@code payload}: the frame to carry back. */
    public Outbound reply(Operation operation, byte[] payload) {
        Objects.requireNonNull(operation, "operation");
        try {
            return Decoder.read(Native.reply(handle.value, operation.frame, payload(payload), 0, 0, null), Decoder::outbound);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@link #reply(Operation, byte[])} with the payload's remaining bytes. */
    public Outbound reply(Operation operation, ByteBuffer payload) {
        return reply(operation, Utf8.of(payload, "payload"));
    }

    /**
     * Answers a delivered request with an error: {@code kind} "Handler" or "Decode", an
     * application {@code code} and {@code message}.
     */
    public Outbound replyError(Operation operation, String kind, int code, String message) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(message, "message");
        int k = switch (Objects.requireNonNull(kind, "kind")) {
            case "Handler" -> 1;
            case "Decode" -> 2;
            default -> throw new ZlinkInputException(
                    "error kind must be \"Handler\" or \"Decode\", got \"" + kind + "\"", "UnknownErrorKind", null);
        };
        try {
            return Decoder.read(Native.reply(handle.value, operation.frame, null, k, code, message), Decoder::outbound);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Reports whether a {@link Relay}'s notification was sent: call it once for every {@link
     * Relay#notice()}, after carrying its {@link Notice#outbound()} (command 50) to the original
     * sender. Until it is called the notice counts as in flight and no other is sent for that
     * sender and route, so the sender keeps its stale route and every message it sends detours
     * through this node until its cache expires.
     *
     * @param token the notice's {@link Notice#token()}
     * @param sent whether the transport took the notification; after {@code false} a later relay
     *     notifies again
     */
    public void noticeSettled(NoticeToken token, boolean sent) {
        Objects.requireNonNull(token, "token");
        try {
            Native.noticeSettled(handle.value, token.blob, sent);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Cancels a pending request: its Completion, or empty if it had already ended. */
    public Optional<Completion> cancel(long correlation) {
        try {
            byte[] done = Native.cancel(handle.value, correlation);
            return done == null ? Optional.empty() : Optional.of(completion(done));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private static Completion completion(byte[] decision) {
        return ((Completed) Decoder.read(decision, Decoder::inbound)).completion();
    }

    /** Ends every pending request with Shutdown: their Completions. */
    public List<Completion> shutdownRequests() {
        try {
            return Decoder.read(Native.shutdownRequests(handle.value), Decoder::inbounds).stream()
                    .map(d -> ((Completed) d).completion()).toList();
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Requests waiting for their result. */
    public long pendingRequests() {
        try {
            return Native.pendingRequests(handle.value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The runtime's clock now, in nanoseconds: the {@code now} for {@link #onTimeout(long)}. */
    public long now() {
        try {
            return Native.now(handle.value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The earliest instant (runtime clock, ns) any deadline needs waking at, if any. */
    public OptionalLong nextDeadline() {
        try {
            long next = Native.nextDeadline(handle.value);
            return next < 0 ? OptionalLong.empty() : OptionalLong.of(next);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Runs every deadline due now (the runtime's clock): their decisions, in order, to handle as
     * {@link #onFrame}'s. Call it whenever {@link #nextDeadline()} is due, and at once after a
     * {@link Relocation} whose event is {@link RelocationEvent.CommitDue} (the move's owner CAS is
     * due now; without the call the move never commits).
     */
    public List<Inbound> onTimeout() {
        try {
            return Decoder.read(Native.onTimeoutNow(handle.value), Decoder::inbounds);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Runs every deadline due at {@code nowNs} (runtime clock): their decisions, in order.
     *
     * @throws ZlinkInputException {@code nowNs} is negative (kind {@code Negative})
     */
    public List<Inbound> onTimeout(long nowNs) {
        try {
            return Decoder.read(Native.onTimeout(handle.value, nowNs), Decoder::inbounds);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@link #onTimeout()} on a runtime thread. */
    public CompletableFuture<List<Inbound>> onTimeoutAsync() {
        return async(this::onTimeout);
    }

    /** {@link #onTimeout(long)} on a runtime thread; a negative {@code nowNs} throws here. */
    public CompletableFuture<List<Inbound>> onTimeoutAsync(long nowNs) {
        return started(raw -> Native.onTimeoutAsync(handle.value, nowNs, raw),
                bytes -> Decoder.read(bytes, Decoder::inbounds));
    }

    // ---- 4-6 with interned keys: the fast path -----------------------------

    /**
     * The cache-only fast path of a String ID, read straight from the String (no {@code byte[]}
     * either way): 1 (cached: the route's numbers in {@code out}), 0 (not cached), or -1 (an ID
     * it leaves to the checked path: null, empty, not ASCII, long; or a closed runtime).
     */
    private int fast(int kind, String id, long[] out) {
        return id == null ? -1 : Native.lookupString(handle.value, kind, id, out);
    }

    private ReadyRoute route(long[] v, int at) {
        return route(mesh, v, at);
    }

    /** A route of {@code mesh} from the fast path's numbers at {@code v[at..at + 7]}. */
    static ReadyRoute route(String mesh, long[] v, int at) {
        return new ReadyRoute(mesh, v[at], new RouteFence(v[at + 1], v[at + 2], v[at + 3], v[at + 4], v[at + 5]),
                v[at + 6]);
    }

    /**
     * The near cache's answer for {@code (kind, id)}: a hit; else, for an ID short enough for it
     * (its UTF-8 is at least as long as its characters; a longer one the near table never holds),
     * the core's answer through it (kept if it may be). Null when the near cache cannot answer
     * (closed or off, a null, long or non-ASCII ID, anything the checked path must handle).
     */
    private Optional<ReadyRoute> near(int kind, String id) {
        NearCache n = near;
        if (n == null || id == null) {
            return null;
        }
        NearCache.Entry e = n.get(kind, id);
        if (e != null) {
            return e.some;
        }
        return id.length() <= n.maxIdBytes ? n.fill(handle.value, mesh, kind, id) : null;
    }

    /** Whether {@link #near(int, String)} asked the core already (so the fast path need not). */
    private boolean nearTried(String id) {
        NearCache n = near;
        return n != null && id != null && id.length() <= n.maxIdBytes;
    }

    /** {@link #near(int, String)} for an interned key. */
    private Optional<ReadyRoute> near(ObjectKey key) {
        NearCache n = near;
        if (n == null) {
            return null;
        }
        NearCache.Entry e = n.get(key.kind().code(), key.id());
        if (e != null) {
            return e.some;
        }
        return key.utf8.length <= n.maxIdBytes ? n.fill(handle.value, mesh, key) : null;
    }

    /** Near hits served so far (tests). */
    long nearHits() {
        NearCache n = near;
        return n == null ? 0 : n.hits();
    }

    /** Entries in the near cache (tests). */
    long nearSize() {
        NearCache n = near;
        return n == null ? 0 : n.size();
    }

    /**
     * {@link #lookupCached(ObjectKind, String)} for an interned key: one {@code long} crosses JNI,
     * nothing is copied or allocated on the native side.
     */
    public Optional<ReadyRoute> lookupCached(ObjectKey key) {
        Objects.requireNonNull(key, "key");
        try {
            Optional<ReadyRoute> hit = near(key);
            if (hit != null) {
                return hit;
            }
        } finally {
            Reference.reachabilityFence(this);
        }
        return Optional.ofNullable(checked(key));
    }

    private ReadyRoute lookup(ObjectKey key) {
        Objects.requireNonNull(key, "key");
        try {
            Optional<ReadyRoute> hit = near(key);
            if (hit != null) {
                return hit.orElse(null);
            }
        } finally {
            Reference.reachabilityFence(this);
        }
        return checked(key);
    }

    /** {@link #lookup} off the near cache: the fast path, then the checked one. */
    private ReadyRoute checked(ObjectKey key) {
        long[] out = ROUTE.get();
        try {
            int status = Native.lookupKey(handle.value, key.handle.value, out);
            if (status == 1) {
                return route(out, 0);
            }
            if (status == 0) {
                return null;
            }
            byte[] hit = Native.lookupCached(handle.value, key.kind().code(), key.utf8);
            return hit == null ? null : Decoder.read(hit, Decoder::readyRoute);
        } finally {
            Reference.reachabilityFence(key);
            Reference.reachabilityFence(this);
        }
    }

    /** {@link #resolve(ObjectKind, String)} for an interned key: a cache hit takes the fast path. */
    public Resolution resolve(ObjectKey key) {
        ReadyRoute hit = lookup(key);
        return hit != null ? hit : resolve(key.kind(), key.id());
    }

    /** {@link #resolveAsync(ObjectKind, String)} for an interned key. */
    public CompletableFuture<Resolution> resolveAsync(ObjectKey key) {
        Objects.requireNonNull(key, "key");
        return resolveAsync(key.kind(), key.id());
    }

    /**
     * The cached routes of many keys in one JNI call: element {@code i} is the route of {@code
     * keys[i]}, or null if it is not cached. Never blocks, never reads the store.
     */
    public ReadyRoute[] lookupCachedMany(ObjectKey[] given) {
        // A copy the caller cannot change: every key read stays reachable
        // (and its native copy alive) until the call is over.
        ObjectKey[] keys = Objects.requireNonNull(given, "keys").clone();
        int n = keys.length;
        for (int i = 0; i < n; i++) {
            Objects.requireNonNull(keys[i], "keys[" + i + "]");
        }
        ReadyRoute[] routes = new ReadyRoute[n];
        NearCache near = this.near;
        try {
            // The near cache first (one clock reading for the batch, after every epoch); the keys
            // it has not, in one JNI call.
            int[] asked = new int[n];
            int m = 0;
            if (near != null) {
                NearCache.Entry[] held = new NearCache.Entry[n];
                for (int i = 0; i < n; i++) {
                    held[i] = near.held(keys[i].kind().code(), keys[i].id());
                }
                long now = near.now();
                long served = 0;
                for (int i = 0; i < n; i++) {
                    if (held[i] != null && near.unexpired(held[i], now)) {
                        routes[i] = held[i].route;
                        served++;
                    } else {
                        asked[m++] = i;
                    }
                }
                if (served > 0) {
                    near.counted(served);
                }
            } else {
                for (int i = 0; i < n; i++) {
                    asked[i] = i;
                }
                m = n;
            }
            if (m == 0) {
                return routes;
            }
            long[] handles = new long[m];
            for (int j = 0; j < m; j++) {
                handles[j] = keys[asked[j]].handle.value;
            }
            if (near != null) {
                int stride = NearCache.LONGS + 1;
                long[] out = new long[m * stride];
                Native.lookupNearKeys(handle.value, handles, m, out);
                for (int j = 0; j < m; j++) {
                    ObjectKey key = keys[asked[j]];
                    Optional<ReadyRoute> r = near.settle(key.kind().code(), key.id(), key.utf8.length,
                            (int) out[j * stride], out, j * stride + 1, mesh);
                    routes[asked[j]] = r != null ? r.orElse(null) : checked(key);
                }
                return routes;
            }
            long[] out = new long[m * 8];
            Native.lookupKeys(handle.value, handles, m, out);
            for (int j = 0; j < m; j++) {
                long status = out[j * 8];
                if (status == 1) {
                    routes[asked[j]] = route(out, j * 8 + 1);
                } else if (status < 0) {
                    routes[asked[j]] = checked(keys[asked[j]]);
                }
            }
            return routes;
        } finally {
            Reference.reachabilityFence(keys);
            Reference.reachabilityFence(near);
            Reference.reachabilityFence(this);
        }
    }

    // ---- 14-17: the lifecycle writes ---------------------------------------

    private OwnedObject write(int op, ObjectKind kind, String id) {
        try {
            return Decoder.read(Native.write(handle.value, op, kind(kind), id(id)), Decoder::owned);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Creates a new incarnation owned by this node, in Creating. */
    public OwnedObject create(ObjectKind kind, String id) {
        return write(1, kind, id);
    }

    /** Publishes this node's Creating object as Ready. */
    public OwnedObject publishReady(ObjectKind kind, String id) {
        return write(2, kind, id);
    }

    /** Creates, then publishes Ready. */
    public OwnedObject activate(ObjectKind kind, String id) {
        return write(3, kind, id);
    }

    /** Extends this node's owner lease on the object. */
    public OwnedObject renewLease(ObjectKind kind, String id) {
        return write(4, kind, id);
    }

    /** Starts releasing: the ID resolves Unavailable(RELEASING). */
    public OwnedObject beginRelease(ObjectKind kind, String id) {
        return write(5, kind, id);
    }

    /**
     * {@link #activate} on a runtime thread (every lifecycle write has the same form). The ID is
     * checked here, as {@code activate} checks it; the future carries the write's outcome (a
     * refused write fails it with a {@link LifecycleException}).
     *
     * @throws ZlinkInputException the ID is empty, over the cap or not valid Unicode
     * @throws NullPointerException an argument is null
     */
    public CompletableFuture<OwnedObject> activateAsync(ObjectKind kind, String id) {
        return writeAsync(3, kind, id);
    }

    /** {@link #create} on a runtime thread; bad input throws here (see {@link #activateAsync}). */
    public CompletableFuture<OwnedObject> createAsync(ObjectKind kind, String id) {
        return writeAsync(1, kind, id);
    }

    /** {@link #publishReady} on a runtime thread; bad input throws here (see {@link #activateAsync}). */
    public CompletableFuture<OwnedObject> publishReadyAsync(ObjectKind kind, String id) {
        return writeAsync(2, kind, id);
    }

    /** {@link #renewLease} on a runtime thread; bad input throws here (see {@link #activateAsync}). */
    public CompletableFuture<OwnedObject> renewLeaseAsync(ObjectKind kind, String id) {
        return writeAsync(4, kind, id);
    }

    /** {@link #beginRelease} on a runtime thread; bad input throws here (see {@link #activateAsync}). */
    public CompletableFuture<OwnedObject> beginReleaseAsync(ObjectKind kind, String id) {
        return writeAsync(5, kind, id);
    }

    private CompletableFuture<OwnedObject> writeAsync(int op, ObjectKind kind, String id) {
        int k = kind(kind);
        byte[] utf8 = id(id);
        return started(raw -> Native.writeAsync(handle.value, op, k, utf8, raw),
                bytes -> Decoder.read(bytes, Decoder::owned));
    }

    /** {@link #completeRelease} on a runtime thread; bad input throws here (see {@link #activateAsync}). */
    public CompletableFuture<Void> completeReleaseAsync(ObjectKind kind, String id) {
        int k = kind(kind);
        byte[] utf8 = id(id);
        return started(raw -> Native.completeReleaseAsync(handle.value, k, utf8, raw), bytes -> (Void) null);
    }

    /** Completes the release: the ID resolves Missing. */
    public void completeRelease(ObjectKind kind, String id) {
        try {
            Native.completeRelease(handle.value, kind(kind), id(id));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** What this node owns for the ID, if anything. */
    public Optional<OwnedObject> owned(ObjectKind kind, String id) {
        try {
            byte[] owned = Native.owned(handle.value, kind(kind), id(id));
            return owned == null ? Optional.empty() : Optional.of(Decoder.read(owned, Decoder::owned));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** How many objects this node owns. */
    public long ownedCount() {
        try {
            return Native.ownedCount(handle.value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * This node's tenure of an object it owns (what a Message Follow route names, where an
     * ActorRef points); empty if it does not own it.
     */
    public Optional<RouteEnd> ownerRouteEnd(ObjectKind kind, String id) {
        try {
            byte[] end = Native.ownerRouteEnd(handle.value, kind(kind), id(id));
            return end == null ? Optional.empty() : Optional.of(Decoder.read(end, Decoder::routeEnd));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    // ---- 18-20: relocation ---------------------------------------------------

    /**
     * Source: starts moving an object this node owns (Ready) to runtime {@code targetRid} of this
     * mesh, after the current handler for it ended. {@code saved}: the operations the host
     * accepted and has not run, in queue order; {@code state}: the object's application state.
     * From now on nothing for it is delivered here. Carry every frame of the result's {@code send}.
     */
    public RelocationStarted beginRelocation(ObjectKind kind, String id, long targetRid, long targetGeneration,
            List<Operation> saved, byte[] state) {
        Objects.requireNonNull(saved, "saved");
        byte[][] frames = saved.stream().map(op -> Objects.requireNonNull(op, "saved operation").frame)
                .toArray(byte[][]::new);
        Objects.requireNonNull(state, "state");
        try {
            return Decoder.read(Native.beginRelocation(handle.value, kind(kind), id(id), targetRid,
                    targetGeneration, frames, state), Decoder::relocationStarted);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Target: the host built the object from the {@link RelocationEvent.Restore}'s state. Returns
     * relay-ready for the source (the point of no return); the object runs here once a later
     * {@link Relocation} says {@link RelocationEvent.Committed}.
     */
    public List<Outbound> relocationRestored(ObjectKind kind, String id) {
        try {
            return Decoder.read(Native.relocationRestored(handle.value, kind(kind), id(id)), Decoder::outbounds);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Abandons a relocation before relay-ready, on the source (its held work comes back in {@code
     * deliver}) or on the target (the state could not be restored). A {@link RelocationException}
     * ({@code AfterRelayReady}) after it.
     */
    public Relocation abortRelocation(ObjectKind kind, String id) {
        try {
            return (Relocation) Decoder.read(Native.abortRelocation(handle.value, kind(kind), id(id)), Decoder::inbound);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    // ---- 21-26: sessions (spec §3) ------------------------------------------

    /** Opens a Session owned by this runtime. */
    public SessionRef openSession(long session, long generation) {
        try {
            return Decoder.read(Native.openSession(handle.value, session, generation), Decoder::sessionRef);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Binds (or rebinds) {@code session} to Actor {@code actor} at {@code route}. Carry the
     * Outbound; the route is stored only by its terminal reply ({@link Bound} or {@link
     * BindRefused} from {@link #onFrame}).
     */
    public Outbound bind(long session, String actor, ActorRoute route) {
        Objects.requireNonNull(route, "route");
        NodeRef owner = route.owner();
        long[] numbers = {owner.rid(), owner.generation(), route.objectGeneration(),
            route.authorityOwnerGeneration(), route.ownerLeaseGeneration(), route.leaseRemainingMs()};
        try {
            return Decoder.read(Native.bind(handle.value, session, id(actor), owner.mesh(), numbers), Decoder::outbound);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@link #bind(long, String, ActorRoute)} at an owner's tenure (from {@link #ownerRouteEnd}). */
    public Outbound bind(long session, String actor, RouteEnd end) {
        Objects.requireNonNull(end, "end");
        RouteFence f = end.fence();
        return bind(session, actor, new ActorRoute(end.node(), f.objectGeneration(),
                f.authorityOwnerGeneration(), f.ownerLeaseGeneration(), 0));
    }

    /** The stored binding route of Actor {@code actor} in {@code session}, if any. */
    public Optional<BindingRoute> binding(long session, String actor) {
        try {
            byte[] b = Native.binding(handle.value, session, id(actor));
            return b == null ? Optional.empty() : Optional.of(Decoder.read(b, Decoder::bindingRoute));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Relays {@code payload} from {@code session} to Actor {@code actor} on the stored route (no
     * lookup): {@link SessionSent}, {@link SessionHeld} or {@link Unavailable}.
     */
    public SessionSendResult sessionSend(long session, String actor, byte[] payload) {
        try {
            return Decoder.read(Native.sessionSend(handle.value, session, id(actor), payload(payload)), Decoder::sessionSent);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@link #sessionSend(long, String, byte[])} with the payload's remaining bytes. */
    public SessionSendResult sessionSend(long session, String actor, ByteBuffer payload) {
        return sessionSend(session, actor, Utf8.of(payload, "payload"));
    }

    /**
     * The Session's connection closed ({@code physical}) or the application ended it: the
     * disconnect notifications to carry.
     */
    public List<Outbound> disconnectSession(long session, boolean physical) {
        try {
            return Decoder.read(Native.disconnectSession(handle.value, session, physical), Decoder::outbounds);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Pushes {@code payload} from Actor {@code actor} to the bound {@code session}, if registered here. */
    public Optional<Outbound> push(String actor, SessionRef session, byte[] payload) {
        Objects.requireNonNull(session, "session");
        NodeRef o = session.owner();
        try {
            byte[] out = Native.push(handle.value, id(actor), o.mesh(), o.rid(), o.generation(), session.id(),
                    session.generation(), payload(payload));
            return out == null ? Optional.empty() : Optional.of(Decoder.read(out, Decoder::outbound));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The Sessions bound to Actor {@code actor} here. */
    public List<Registration> boundSessions(String actor) {
        try {
            return Decoder.read(Native.boundSessions(handle.value, id(actor)), d -> d.list(d::registration));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** After a lease renewal: a command 44 refresh to every bound Session. */
    public List<Outbound> refreshSessionRoutes(String actor) {
        try {
            return Decoder.read(Native.refreshSessionRoutes(handle.value, id(actor)), Decoder::outbounds);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Drops every binding of Actor {@code actor} here. */
    public void forgetBindings(String actor) {
        try {
            Native.forgetBindings(handle.value, id(actor));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    // ---- 27-30: manual object peers (spec §2.3) -----------------------------

    private static String text(String s, String what) {
        return Objects.requireNonNull(s, what);
    }

    /** Publishes this node's own object-peer descriptor (writes the store). */
    public PeerDescriptor publishDescriptor(String endpoint, String securityIdentity) {
        try {
            return Decoder.read(Native.publishDescriptor(handle.value, text(endpoint, "endpoint"),
                    text(securityIdentity, "securityIdentity")), Decoder::peerDescriptor);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * {@link #publishDescriptor} on a runtime thread. An endpoint or security identity out of
     * 1..=1024 UTF-8 bytes throws here ({@link ZlinkInputException}, kind {@code BadPeerField}).
     */
    public CompletableFuture<PeerDescriptor> publishDescriptorAsync(String endpoint, String securityIdentity) {
        String e = text(endpoint, "endpoint");
        String s = text(securityIdentity, "securityIdentity");
        return started(raw -> Native.publishDescriptorAsync(handle.value, e, s, raw),
                bytes -> Decoder.read(bytes, Decoder::peerDescriptor));
    }

    /** Registers a manually configured endpoint (an intent only). */
    public void addManualPeer(String endpoint) {
        try {
            Native.addManualPeer(handle.value, text(endpoint, "endpoint"));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Looks up every manual endpoint's descriptor (reads the store): the replacements to perform now. */
    public List<PeerReplacement> connectManualPeers() {
        try {
            return Decoder.read(Native.connectManualPeers(handle.value), d -> d.list(d::peerReplacement));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@link #connectManualPeers} on a runtime thread. */
    public CompletableFuture<List<PeerReplacement>> connectManualPeersAsync() {
        return async(this::connectManualPeers);
    }

    /** Registers {@code endpoint} if needed and looks its descriptor up: a replacement to perform now. */
    public Optional<PeerReplacement> ensureManualPeer(String endpoint) {
        try {
            byte[] r = Native.ensureManualPeer(handle.value, text(endpoint, "endpoint"));
            return r == null ? Optional.empty() : Optional.of(Decoder.read(r, Decoder::peerReplacement));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * {@link #ensureManualPeer} on a runtime thread. An endpoint out of 1..=1024 UTF-8 bytes
     * throws here ({@link ZlinkInputException}, kind {@code BadPeerField}).
     */
    public CompletableFuture<Optional<PeerReplacement>> ensureManualPeerAsync(String endpoint) {
        String e = text(endpoint, "endpoint");
        return started(raw -> Native.ensureManualPeerAsync(handle.value, e, raw), bytes -> bytes == null
                ? Optional.empty() : Optional.of(Decoder.read(bytes, Decoder::peerReplacement)));
    }

    /** The transport connected {@code endpoint}; its handshake showed {@code rid}. */
    public void peerOpened(String endpoint, long rid) {
        try {
            Native.peerOpened(handle.value, text(endpoint, "endpoint"), rid);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The transport confirmed {@code endpoint} closed: a waiting replacement is installed and returned. */
    public Optional<PeerReplacement> peerClosed(String endpoint) {
        try {
            byte[] r = Native.peerClosed(handle.value, text(endpoint, "endpoint"));
            return r == null ? Optional.empty() : Optional.of(Decoder.read(r, Decoder::peerReplacement));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The intent, observed routing ID and close state of {@code endpoint}. */
    public Optional<PeerIntent> peerIntent(String endpoint) {
        try {
            byte[] i = Native.peerIntent(handle.value, text(endpoint, "endpoint"));
            return i == null ? Optional.empty() : Optional.of(Decoder.read(i, Decoder::peerIntent));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Where to reach node {@code rid}, only through an installed descriptor. */
    public Optional<String> peerEndpoint(long rid) {
        try {
            return Optional.ofNullable(Native.peerEndpoint(handle.value, rid));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * {@link #onFrame} behind a manual peer connection's admission fence: {@link PeerRefused}
     * unless the connection carries an installed descriptor, is open with its routing ID, and the
     * sender's lifecycle matches.
     */
    public Inbound onPeerFrame(String endpoint, byte[] frame) {
        Objects.requireNonNull(frame, "frame");
        try {
            return Decoder.read(Native.onPeerFrame(handle.value, text(endpoint, "endpoint"), frame), Decoder::inbound);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@link #onPeerFrame} on a runtime thread; a null argument or an over-long frame throws here. */
    public CompletableFuture<Inbound> onPeerFrameAsync(String endpoint, byte[] frame) {
        Objects.requireNonNull(frame, "frame");
        text(endpoint, "endpoint");
        return started(raw -> Native.onPeerFrameAsync(handle.value, endpoint, frame, raw),
                bytes -> Decoder.read(bytes, Decoder::inbound));
    }

    // ---- 31-32: invalidation events and counters ---------------------------

    /** The lifecycle {@code lease} of node {@code node} ended: drops its cached routes. */
    public long onOwnerLeaseInvalidated(long node, long lease) {
        try {
            return Native.onOwnerLeaseInvalidated(handle.value, node, lease);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** A store recovery event the host observed: clears the route cache. */
    public long onStoreRecovery() {
        try {
            return Native.onStoreRecovery(handle.value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Every counter, read now: {@code name} at the top level, {@code group.name} within a group
     * (e.g. {@code resolutions.ready_route}), in the bridge's order.
     */
    public Map<String, Long> stats() {
        try {
            return Collections.unmodifiableMap(Decoder.read(Native.stats(handle.value), Decoder::stats));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Every metric family, read now: the counters, then the latency histograms, for the
     * service's metrics library.
     */
    public List<MetricFamily> metrics() {
        try {
            return Decoder.read(Native.metrics(handle.value), d -> d.list(() -> Surface.metricFamily(d)));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Every metric in the Prometheus text exposition format: what a scrape of /metrics answers. */
    public String metricsText() {
        try {
            return Native.metricsText(handle.value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    @Override
    public String toString() {
        try {
            NodeIdentity me = identity();
            return "ZlinkRuntime(mesh=" + me.mesh() + ", rid=" + me.rid() + ", generation="
                    + me.generation() + ")";
        } catch (ZlinkClosedException e) {
            return "ZlinkRuntime(closed)";
        }
    }
}
