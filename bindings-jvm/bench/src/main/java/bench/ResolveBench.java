package bench;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.zlink.MemoryStore;
import io.zlink.NodeIdentity;
import io.zlink.ObjectKey;
import io.zlink.ObjectKind;
import io.zlink.ReadyRoute;
import io.zlink.RoutingConfig;
import io.zlink.ZlinkRuntime;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Cache hits of {@code lookupCached} against Caffeine {@code getIfPresent}, on the same IDs in
 * the same order, in one run: 100,000 32-byte IDs visited scattered, 1,000 hot IDs, and one hot
 * ID. The runtime answers hits from its near cache (in Java, no JNI call; docs/jvm.md); key
 * forms: the ID as a String, an interned {@link ObjectKey}, and a batch of 64 interned keys per
 * call (cost per ID). {@code ...NoNear}: a runtime built with {@code nearCache(false)}, every
 * hit a JNI call (for comparison, no target). A second peer, {@code caffeineExpireAfterWrite...}:
 * Caffeine built with {@code expireAfterWrite(15, SECONDS)}, which reads its ticker
 * ({@code System.nanoTime()}) on each get, as a near hit reads the clock for its route's expiry
 * (plain Caffeine has no expiry and reads no clock), on the scattered and the 1,000 hot IDs.
 * Prints ns per lookup and each ratio to plain Caffeine (issue 31's targets: <= 1.0x scattered,
 * <= 1.5x hot), then the String-ID hit's ratio to the expiring Caffeine (no target); never fails
 * on a timing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ResolveBench {
    static final int IDS = 100_000;
    static final int HOT = 1_000;
    static final int BATCH = 64;

    String[] ids;
    ObjectKey[] keys;
    ObjectKey[][] batches;
    Cache<String, ReadyRoute> caffeine;
    /** Caffeine with expiry: reads System.nanoTime() on each get, as the near cache must. */
    Cache<String, ReadyRoute> caffeineExpiring;
    MemoryStore store;
    ZlinkRuntime owner;
    ZlinkRuntime sender;
    /** The same, without a near cache: every hit crosses JNI. */
    ZlinkRuntime native_;
    int next;
    int nextHot;

    @Setup(Level.Trial)
    public void setUp() {
        ids = new String[IDS];
        for (int i = 0; i < IDS; i++) {
            // Scattered: neighbouring visits hit unrelated entries.
            ids[i] = String.format("actor-%026d", (i * 7919L) % IDS);
        }
        keys = new ObjectKey[IDS];
        for (int i = 0; i < IDS; i++) {
            keys[i] = ObjectKey.of(ObjectKind.ACTOR, ids[i]);
        }
        batches = new ObjectKey[IDS / BATCH][];
        for (int b = 0; b < batches.length; b++) {
            batches[b] = java.util.Arrays.copyOfRange(keys, b * BATCH, (b + 1) * BATCH);
        }
        RoutingConfig hour = RoutingConfig.builder().ownerLeaseDuration(3_600_000)
                .messageFollowDuration(3_600_000).routeCacheMaxAge(3_500_000).build();
        store = new MemoryStore();
        owner = ZlinkRuntime.builder(new NodeIdentity("bench", 1)).config(hour).store(store).build();
        sender = ZlinkRuntime.builder(new NodeIdentity("bench", 2)).config(hour).store(store).build();
        native_ = ZlinkRuntime.builder(new NodeIdentity("bench", 3)).config(hour).store(store).nearCache(false)
                .build();
        caffeine = Caffeine.newBuilder().maximumSize(2L * IDS).build();
        for (String id : ids) {
            owner.activate(ObjectKind.ACTOR, id);
            ReadyRoute r = (ReadyRoute) sender.resolve(ObjectKind.ACTOR, id);
            native_.resolve(ObjectKind.ACTOR, id);
            caffeine.put(id, r);
        }
        // Filled last, right before the trial's 8 s (3 s warmup + 5 s measurement), well inside
        // the 15 s: every get is a hit (tearDown checks).
        caffeineExpiring = Caffeine.newBuilder().maximumSize(2L * IDS).expireAfterWrite(15, TimeUnit.SECONDS)
                .build();
        for (String id : ids) {
            caffeineExpiring.put(id, caffeine.getIfPresent(id));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (caffeineExpiring.getIfPresent(ids[0]) == null) {
            System.err.println("caffeineExpireAfterWrite: entries expired during the trial; its figures timed misses");
        }
        sender.close();
        native_.close();
        owner.close();
        store.close();
    }

    private int nextIndex() {
        int i = next;
        next = i + 1 == IDS ? 0 : i + 1;
        return i;
    }

    private int nextHotIndex() {
        int i = nextHot;
        nextHot = i + 1 == HOT ? 0 : i + 1;
        return i;
    }

    @Benchmark
    public ReadyRoute caffeineGetIfPresent() {
        return caffeine.getIfPresent(ids[nextIndex()]);
    }

    @Benchmark
    public ReadyRoute caffeineExpireAfterWrite() {
        return caffeineExpiring.getIfPresent(ids[nextIndex()]);
    }

    @Benchmark
    public ReadyRoute caffeineExpireAfterWriteHot1000() {
        return caffeineExpiring.getIfPresent(ids[nextHotIndex()]);
    }

    @Benchmark
    public Object zlinkStringId() {
        return sender.lookupCached(ObjectKind.ACTOR, ids[nextIndex()]);
    }

    @Benchmark
    public Object zlinkStringIdNoNear() {
        return native_.lookupCached(ObjectKind.ACTOR, ids[nextIndex()]);
    }

    @Benchmark
    public ReadyRoute caffeineGetIfPresentHot1000() {
        return caffeine.getIfPresent(ids[nextHotIndex()]);
    }

    @Benchmark
    public Object zlinkStringIdHot1000() {
        return sender.lookupCached(ObjectKind.ACTOR, ids[nextHotIndex()]);
    }

    @Benchmark
    public Object zlinkInternedKeyHot1000() {
        return sender.lookupCached(keys[nextHotIndex()]);
    }

    @Benchmark
    public Object zlinkStringIdNoNearHot1000() {
        return native_.lookupCached(ObjectKind.ACTOR, ids[nextHotIndex()]);
    }

    @Benchmark
    public Object zlinkInternedKey() {
        return sender.lookupCached(keys[nextIndex()]);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public ReadyRoute[] zlinkBatchOf64() {
        int b = next;
        next = b + 1 == batches.length ? 0 : b + 1;
        return sender.lookupCachedMany(batches[b]);
    }

    /** The fixed cost of a hit: one ID, always in the CPU's caches. */
    @Benchmark
    public Object zlinkInternedKeyHot() {
        return sender.lookupCached(keys[0]);
    }

    @Benchmark
    public ReadyRoute caffeineGetIfPresentHot() {
        return caffeine.getIfPresent(ids[0]);
    }

    /** Runs every benchmark in one JVM run and prints the ratios to Caffeine. */
    public static void main(String[] args) throws Exception {
        var results = new Runner(new OptionsBuilder().include(ResolveBench.class.getSimpleName()).build()).run();
        Map<String, Double> ns = new TreeMap<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark().replaceAll(".*\\.", "");
            ns.put(name, r.getPrimaryResult().getScore());
        }
        System.out.printf("%ncache-hit lookup (ns per ID; ratio to Caffeine getIfPresent on the same IDs; "
                + "targets: <= 1.0x on %d scattered IDs, <= 1.5x hot)%n", IDS);
        for (var e : ns.entrySet()) {
            String name = e.getKey();
            String set = name.endsWith("Hot1000") ? "Hot1000" : name.endsWith("Hot") ? "Hot" : "";
            Double base = ns.get("caffeineGetIfPresent" + set);
            if (base == null) {
                continue;
            }
            double ratio = e.getValue() / base;
            String vs = switch (set) {
                case "Hot1000" -> "Caffeine, 1,000 hot IDs";
                case "Hot" -> "Caffeine, one hot ID";
                default -> "Caffeine, 100k scattered IDs";
            };
            // The near path has the targets; the JNI path and the expiring Caffeine are
            // shown for comparison.
            Double target = name.startsWith("caffeine") || name.contains("NoNear") ? null
                    : set.isEmpty() ? 1.0 : 1.5;
            System.out.printf("  %-32s %8.1f ns   %.2fx  %s%s%n", name, e.getValue(), ratio, vs,
                    target == null ? "" : String.format(" (target <= %.1fx: %s)", target, ratio <= target ? "met" : "NOT met"));
            if (!name.startsWith("caffeineGetIfPresent")) {
                record(name, e.getValue(), ratio, vs, target);
            }
        }
        // The same hit against a Caffeine that pays for expiry as the near cache does (one clock
        // read per get); the targets stay against plain Caffeine.
        System.out.printf("%nthe String-ID hit against Caffeine with expireAfterWrite(15 s) (reads System.nanoTime() "
                + "on each get; no target)%n");
        for (String set : new String[] {"", "Hot1000"}) {
            Double zlink = ns.get("zlinkStringId" + set);
            Double base = ns.get("caffeineExpireAfterWrite" + set);
            if (zlink == null || base == null) {
                continue;
            }
            String figure = "zlinkStringId" + set + " vs Caffeine expireAfterWrite";
            String vs = "Caffeine with expireAfterWrite, " + (set.isEmpty() ? "100k scattered IDs" : "1,000 hot IDs");
            System.out.printf("  %-49s %8.1f ns   %.2fx  %s%n", figure, zlink, zlink / base, vs);
            record(figure, zlink, zlink / base, vs, null);
        }
    }

    /** Appends one figure to the summary `make bench` ends with (the file ZLINK_BENCH_OUT names). */
    private static void record(String figure, double ns, double ratio, String vs, Double target)
            throws java.io.IOException {
        String out = System.getenv("ZLINK_BENCH_OUT");
        if (out == null || out.isEmpty()) {
            return;
        }
        String line = String.format(java.util.Locale.ROOT,
                "{\"bench\": \"jvm\", \"figure\": \"%s\", \"value\": %.3f, \"unit\": \"ns\", \"ratio\": %.4f, "
                        + "\"vs\": \"%s\", \"target\": %s, \"met\": %s}%n",
                figure, ns, ratio, vs, target == null ? "null" : String.format(java.util.Locale.ROOT, "\"<= %.1fx\"", target),
                target == null ? "null" : Boolean.toString(ratio <= target));
        java.nio.file.Files.writeString(java.nio.file.Path.of(out), line, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
    }
}
