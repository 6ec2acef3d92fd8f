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
 * Cache-hit resolve through JNI against Caffeine {@code getIfPresent}, on the same 100,000
 * 32-byte IDs visited in the same scattered order, in one run. Key forms: the ID as a String
 * (its UTF-8 bytes cross JNI), an interned {@link ObjectKey} (one long crosses), and a batch of
 * 64 interned keys per call (cost per ID). Prints ns per lookup and each ratio to Caffeine
 * (target <= 1.5x); never fails on a timing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ResolveBench {
    static final int IDS = 100_000;
    static final int BATCH = 64;

    String[] ids;
    ObjectKey[] keys;
    ObjectKey[][] batches;
    Cache<String, ReadyRoute> caffeine;
    MemoryStore store;
    ZlinkRuntime owner;
    ZlinkRuntime sender;
    int next;

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
        caffeine = Caffeine.newBuilder().maximumSize(2L * IDS).build();
        for (String id : ids) {
            owner.activate(ObjectKind.ACTOR, id);
            ReadyRoute r = (ReadyRoute) sender.resolve(ObjectKind.ACTOR, id);
            caffeine.put(id, r);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        sender.close();
        owner.close();
        store.close();
    }

    private int nextIndex() {
        int i = next;
        next = i + 1 == IDS ? 0 : i + 1;
        return i;
    }

    @Benchmark
    public ReadyRoute caffeineGetIfPresent() {
        return caffeine.getIfPresent(ids[nextIndex()]);
    }

    @Benchmark
    public Object zlinkStringId() {
        return sender.lookupCached(ObjectKind.ACTOR, ids[nextIndex()]);
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

    /** The fixed cost of a crossing: one ID, always in the CPU's caches. */
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
        System.out.printf("%ncache-hit lookup, %d scattered 32-byte IDs (ns per ID; ratio to Caffeine, target <= 1.5x)%n",
                IDS);
        for (var e : ns.entrySet()) {
            boolean hot = e.getKey().endsWith("Hot");
            double base = ns.get(hot ? "caffeineGetIfPresentHot" : "caffeineGetIfPresent");
            System.out.printf("  %-24s %8.1f ns   %.2fx%s%n", e.getKey(), e.getValue(), e.getValue() / base,
                    hot ? " (one hot ID, vs Caffeine's hot ID)" : "");
            if (!e.getKey().startsWith("caffeine")) {
                record(e.getKey(), e.getValue(), e.getValue() / base, hot ? "Caffeine, hot ID" : "Caffeine");
            }
        }
    }

    /** Appends one figure to the summary `make bench` ends with (the file ZLINK_BENCH_OUT names). */
    private static void record(String figure, double ns, double ratio, String vs) throws java.io.IOException {
        String out = System.getenv("ZLINK_BENCH_OUT");
        if (out == null || out.isEmpty()) {
            return;
        }
        String line = String.format(java.util.Locale.ROOT,
                "{\"bench\": \"jvm\", \"figure\": \"%s\", \"value\": %.3f, \"unit\": \"ns\", \"ratio\": %.4f, "
                        + "\"vs\": \"%s\", \"target\": \"<= 1.5x\", \"met\": %b}%n",
                figure, ns, ratio, vs, ratio <= 1.5);
        java.nio.file.Files.writeString(java.nio.file.Path.of(out), line, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
    }
}
