package io.zlink;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.core.instrument.noop.NoopFunctionTimer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A Micrometer {@link MeterBinder} of one runtime's metrics ({@link ZlinkRuntime#metrics()}: the
 * counters, the gauges and the latency histograms named once in the bridge, docs/metrics.md).
 *
 * <pre>{@code
 * ZlinkMetrics metrics = new ZlinkMetrics(runtime);          // or (runtime, Tags.of("node", "2"))
 * metrics.bindTo(registry);                                  // Spring Boot: a @Bean MeterBinder
 * ...
 * metrics.close();                                           // removes its meters
 * }</pre>
 *
 * <p>Micrometer is an optional dependency of {@code io.zlink:zlink}: an application that uses this
 * class brings {@code io.micrometer:micrometer-core} itself (zlink is built and tested with
 * 1.17.2).
 *
 * <p><b>Meters.</b> {@link #bindTo} reads the families once and registers, named with each
 * family's OpenTelemetry-style name ({@link MetricFamily#otelName()}, Micrometer's dotted
 * convention) and tagged with its label (e.g. {@code result=ready_route}) and the tags given here:
 *
 * <ul>
 *   <li>a counter: a {@link FunctionCounter} per sample ({@code zlink.cache_hits}; Prometheus:
 *       {@code zlink_cache_hits_total});
 *   <li>a gauge: a {@link Gauge} per sample ({@code zlink.cache_entries});
 *   <li>a latency histogram: see below.
 * </ul>
 *
 * <p>Each meter reads the current value when the registry asks (a scrape, a publish). A scrape
 * asks every meter in turn; so that it costs one native call rather than one per meter (some 70,
 * 180 with the bucket gauges below), the meters share the last {@link ZlinkRuntime#metrics()} read
 * for {@code maxAge} (default {@link #DEFAULT_MAX_AGE}, 100 ms): a scrape reads the runtime once
 * and its meters agree with one another, and a scrape a second later sees new values. (Micrometer
 * has no "before a scrape" hook, and the Prometheus registry is pulled, so a time bound is the one
 * rule that works for every registry.)
 *
 * <p><b>Histograms.</b> Micrometer has no meter that takes pre-aggregated buckets: a {@code
 * Timer}'s histogram is fed one recording at a time, and the core has already counted them. So:
 *
 * <ul>
 *   <li>bound to a {@code PrometheusMeterRegistry} (micrometer-registry-prometheus, Micrometer
 *       1.13+): each histogram is written to the registry's Prometheus registry as a real
 *       Prometheus histogram, {@code zlink_store_read_duration_seconds_bucket{le=...}}, {@code
 *       _sum} (seconds) and {@code _count}, the same buckets, sum and count as {@link
 *       ZlinkRuntime#metricsText()} ({@code histogram_quantile} works). Its name and tags are those
 *       Micrometer gives a {@code FunctionTimer} of that name (the registry's meter filters apply:
 *       common tags, renames, denies; learnt by registering one and removing it at once); it is
 *       not a Micrometer {@link Meter}, so {@link MeterRegistry#getMeters()} does not list it;
 *   <li>bound to any other registry: a {@link FunctionTimer} of the count and the total time
 *       ({@code zlink.store.read.duration}: a mean latency everywhere) plus, in the format
 *       Micrometer's own {@code HistogramGauges} gives registries without histograms, one {@link
 *       Gauge} per bucket, {@code zlink.store.read.duration.histogram} tagged {@code le} (seconds,
 *       {@code +Inf} last), its value the cumulative count. There is no maximum: the core does not
 *       keep one. (A {@code CompositeMeterRegistry} is such a registry, whatever it holds.)
 * </ul>
 *
 * <p>The forms not taken: on Prometheus too, a {@code FunctionTimer} (a {@code summary} of count
 * and sum) plus bucket gauges or counters tagged {@code le} would lose the histogram type, and
 * {@code promtool check metrics} rejects an {@code le} label on anything but a histogram; a {@code
 * Timer} with zlink's bounds as its service level objectives, fed a made-up recording per counted
 * one, would fake every value (its sum, its max) and cost a recording per event; a custom {@code
 * Meter.builder} with measurements renders as {@code statistic}-tagged series, with no place for
 * bucket bounds.
 *
 * <p><b>A closed runtime.</b> Its meters keep the values last read: a closed runtime counts
 * nothing more, and a counter that stayed put is true where a NaN or a drop to zero would read as
 * a reset. No scrape throws. {@link #close()} removes the meters; do so when a runtime is replaced
 * (a new binder's meters of the same names and tags would otherwise be the old ones, as Micrometer
 * gives back the meter already registered under an ID). {@link #bindTo} on a closed runtime throws
 * {@link ZlinkClosedException}.
 *
 * <p>Thread-safe. The meters hold this binder (and so the runtime) until {@link #close()}.
 */
public final class ZlinkMetrics implements MeterBinder, AutoCloseable {
    /** How long the meters share one read of the runtime's metrics by default: 100 ms. */
    public static final Duration DEFAULT_MAX_AGE = Duration.ofMillis(100);

    private final ZlinkRuntime runtime;
    private final Tags tags;
    private final Snapshot snapshot;
    /** What {@link #close()} undoes: a meter's removal, a histogram's. */
    private final List<Runnable> bound = new ArrayList<>();

    /** A binder of {@code runtime}'s metrics. */
    public ZlinkMetrics(ZlinkRuntime runtime) {
        this(runtime, Tags.empty());
    }

    /**
     * A binder of {@code runtime}'s metrics, every meter also tagged {@code tags} (tell several
     * runtimes bound to one registry apart, e.g. {@code Tags.of("node", "2")}).
     */
    public ZlinkMetrics(ZlinkRuntime runtime, Iterable<Tag> tags) {
        this(runtime, tags, DEFAULT_MAX_AGE);
    }

    /**
     * A binder whose meters share one read of the runtime's metrics for {@code maxAge} ({@link
     * Duration#ZERO}: every meter reads the runtime itself).
     */
    public ZlinkMetrics(ZlinkRuntime runtime, Iterable<Tag> tags, Duration maxAge) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
        if (Objects.requireNonNull(maxAge, "maxAge").isNegative()) {
            throw new IllegalArgumentException("maxAge must not be negative, got " + maxAge);
        }
        long maxAgeNs;
        try {
            maxAgeNs = maxAge.toNanos();
        } catch (ArithmeticException e) {
            maxAgeNs = Long.MAX_VALUE; // some 292 years: read once, at bindTo
        }
        this.snapshot = new Snapshot(runtime, maxAgeNs);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        List<MetricFamily> families = snapshot.readNow();
        boolean prometheus = isPrometheus(registry);
        List<Runnable> added = new ArrayList<>();
        try {
            register(registry, families, prometheus, added);
        } finally {
            // Also what was registered before a failure (a meter filter that threw, say), so
            // that close() removes it.
            synchronized (bound) {
                bound.addAll(added);
            }
        }
    }

    private void register(MeterRegistry registry, List<MetricFamily> families, boolean prometheus,
            List<Runnable> added) {
        for (int fi = 0; fi < families.size(); fi++) {
            MetricFamily f = families.get(fi);
            for (int si = 0; si < f.samples().size(); si++) {
                Where at = new Where(fi, f.name(), si, f.samples().get(si).labelValue());
                Tags t = f.label().isEmpty() ? tags : tags.and(f.label(), at.labelValue);
                switch (f.kind()) {
                    case "counter" -> added.add(removal(registry,
                            // The function's object is the runtime, which Micrometer holds
                            // weakly; the lambda holds this binder, so the meter keeps working
                            // while registered even if the application drops the binder.
                            FunctionCounter.builder(f.otelName(), runtime, rt -> value(at))
                                    .tags(t)
                                    .description(f.help())
                                    .baseUnit(baseUnit(f.unit()))
                                    .register(registry)));
                    case "gauge" -> added.add(removal(registry,
                            Gauge.builder(f.otelName(), runtime, rt -> value(at))
                                    .tags(t)
                                    .description(f.help())
                                    .baseUnit(baseUnit(f.unit()))
                                    .register(registry)));
                    case "histogram" -> {
                        if (prometheus) {
                            prometheusHistogram(registry, f, at, t, added);
                        } else {
                            timerAndBuckets(registry, f, at, t, added);
                        }
                    }
                    default -> {
                        // A kind this version does not know: left out rather than misnamed.
                    }
                }
            }
        }
    }

    /**
     * Removes every meter (and Prometheus histogram) this binder registered, from every registry
     * it was bound to. The runtime is not closed. Binding again afterwards is allowed.
     */
    @Override
    public void close() {
        List<Runnable> undo;
        synchronized (bound) {
            undo = new ArrayList<>(bound);
            bound.clear();
        }
        for (Runnable r : undo) {
            r.run();
        }
    }

    @Override
    public String toString() {
        return "ZlinkMetrics(" + runtime + ")";
    }

    // ---- histograms ---------------------------------------------------------

    /** Any registry but Prometheus's: count and total time, then a gauge per bucket. */
    private void timerAndBuckets(MeterRegistry registry, MetricFamily f, Where at, Tags t,
            List<Runnable> added) {
        FunctionTimer timer = FunctionTimer.builder(f.otelName(), runtime,
                        rt -> count(at), rt -> sumNs(at), TimeUnit.NANOSECONDS)
                .tags(t)
                .description(f.help())
                .register(registry);
        added.add(removal(registry, timer));
        List<Long> bounds = f.boundsNs();
        for (int i = 0; i <= bounds.size(); i++) {
            int bucket = i;
            String le = i == bounds.size() ? "+Inf" : seconds(bounds.get(i));
            added.add(removal(registry, Gauge.builder(f.otelName() + ".histogram", runtime,
                            rt -> bucket == bounds.size() ? count(at) : bucket(at, bucket))
                    .tags(t.and("le", le))
                    .synthetic(timer.getId())
                    .register(registry)));
        }
    }

    /**
     * A Prometheus registry: a real histogram. Its name and tags are the ones Micrometer gives a
     * {@code FunctionTimer} of the family's name on this registry, so that its meter filters and
     * naming convention apply as to the other meters; the only way to learn them is to register
     * one (a filter may rename, tag or deny it) and remove it at once. A meter of the
     * application's own already there under that ID is left alone, and the histogram left out.
     */
    private void prometheusHistogram(MeterRegistry registry, MetricFamily f, Where at, Tags t,
            List<Runnable> added) {
        Collection<Meter> before = registry.find(f.otelName()).meters();
        FunctionTimer probe = FunctionTimer.builder(f.otelName(), runtime, rt -> 0L, rt -> 0.0,
                        TimeUnit.NANOSECONDS)
                .tags(t)
                .description(f.help())
                .register(registry);
        if (before.contains(probe)) {
            return;
        }
        registry.remove(probe);
        if (probe instanceof NoopFunctionTimer) {
            return; // denied by a meter filter (or the registry is closed)
        }
        Meter.Id id = probe.getId();
        NamingConvention convention = registry.config().namingConvention();
        List<String> keys = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (Tag tag : id.getConventionTags(convention)) {
            keys.add(tag.getKey());
            values.add(tag.getValue());
        }
        String help = id.getDescription() == null ? f.help() : id.getDescription();
        added.add(PrometheusHistograms.add(registry, id.getConventionName(convention), help, keys,
                values, f.boundsNs(), () -> sample(at)));
    }

    /**
     * Whether {@code registry} is a PrometheusMeterRegistry of micrometer-registry-prometheus (the
     * Prometheus client 1.x; not the older -simpleclient one), told by class name so that no class
     * of it is loaded for any other registry.
     */
    private static boolean isPrometheus(MeterRegistry registry) {
        for (Class<?> c = registry.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals("io.micrometer.prometheusmetrics.PrometheusMeterRegistry")) {
                return true;
            }
        }
        return false;
    }

    private static Runnable removal(MeterRegistry registry, Meter meter) {
        return () -> registry.remove(meter);
    }

    /** Nanoseconds as seconds, the shortest decimal: as zlink's own text writes an {@code le}. */
    static String seconds(long ns) {
        return BigDecimal.valueOf(ns, 9).stripTrailingZeros().toPlainString();
    }

    private static String baseUnit(String unit) {
        return switch (unit) {
            case "1", "" -> null;
            case "s" -> "seconds";
            default -> unit;
        };
    }

    // ---- reading ------------------------------------------------------------

    /** How many times this binder has read the runtime's metrics (for tests). */
    long reads() {
        return snapshot.reads();
    }

    /** Where a meter's sample is in a read: its family's index and name, its index and label value. */
    private record Where(int family, String name, int sample, String labelValue) { }

    /** The sample at {@code at} in the current read; null if it is gone (it never is). */
    private MetricSample sample(Where at) {
        List<MetricFamily> families = snapshot.current();
        MetricFamily f = at.family < families.size() && families.get(at.family).name().equals(at.name)
                ? families.get(at.family)
                : null;
        if (f == null) {
            for (MetricFamily g : families) {
                if (g.name().equals(at.name)) {
                    f = g;
                    break;
                }
            }
            if (f == null) {
                return null;
            }
        }
        List<MetricSample> samples = f.samples();
        if (at.sample < samples.size() && samples.get(at.sample).labelValue().equals(at.labelValue)) {
            return samples.get(at.sample);
        }
        for (MetricSample s : samples) {
            if (s.labelValue().equals(at.labelValue)) {
                return s;
            }
        }
        return null;
    }

    private double value(Where at) {
        MetricSample s = sample(at);
        return s == null ? Double.NaN : s.value();
    }

    private long count(Where at) {
        MetricSample s = sample(at);
        return s == null ? 0 : s.value();
    }

    private double sumNs(Where at) {
        MetricSample s = sample(at);
        return s == null ? 0 : s.sumNs();
    }

    private double bucket(Where at, int i) {
        MetricSample s = sample(at);
        return s == null || i >= s.buckets().size() ? Double.NaN : s.buckets().get(i);
    }

    /**
     * The last read of the runtime's metrics, read again when older than {@code maxAgeNs}. Once
     * the runtime is closed it is never read again: the last read stays.
     */
    private static final class Snapshot {
        private final ZlinkRuntime runtime;
        private final long maxAgeNs;
        private List<MetricFamily> families = List.of();
        private long readAt;
        private boolean read;
        private boolean closed;
        /** Reads of the runtime so far (tests: one per scrape). */
        private long reads;

        Snapshot(ZlinkRuntime runtime, long maxAgeNs) {
            this.runtime = runtime;
            this.maxAgeNs = maxAgeNs;
        }

        /** Reads now; a closed runtime throws {@link ZlinkClosedException}. */
        synchronized List<MetricFamily> readNow() {
            families = runtime.metrics();
            readAt = System.nanoTime();
            read = true;
            reads++;
            return families;
        }

        synchronized long reads() {
            return reads;
        }

        synchronized List<MetricFamily> current() {
            if (!closed && (!read || System.nanoTime() - readAt >= maxAgeNs)) {
                try {
                    readNow();
                } catch (ZlinkClosedException e) {
                    closed = true;
                }
            }
            return families;
        }
    }

    /**
     * The histograms written to a {@code PrometheusMeterRegistry}'s Prometheus registry: one
     * collector per Prometheus registry, shared by every binder bound to it (two binders' series
     * of one name must be one family). Loaded only for such a registry ({@link #isPrometheus}), so
     * an application without micrometer-registry-prometheus never needs its classes.
     */
    private static final class PrometheusHistograms implements MultiCollector {
        private static final Map<PrometheusRegistry, PrometheusHistograms> BY_REGISTRY = new WeakHashMap<>();

        private final List<Child> children = new CopyOnWriteArrayList<>();

        /** One binder's histogram: its name, help, labels, bounds and current sample. */
        private record Child(String name, String help, Labels labels, double[] bounds,
                Supplier<MetricSample> sample) { }

        /**
         * Adds a histogram; returns its removal. A histogram of the same name and labels already
         * there (the same binder bound twice, or two binders not told apart by tags) is kept and
         * this one dropped, as Micrometer gives back the meter already registered.
         */
        static Runnable add(MeterRegistry meterRegistry, String name, String help, List<String> keys,
                List<String> values, List<Long> boundsNs, Supplier<MetricSample> sample) {
            PrometheusRegistry registry = ((PrometheusMeterRegistry) meterRegistry).getPrometheusRegistry();
            double[] bounds = new double[boundsNs.size()];
            for (int i = 0; i < bounds.length; i++) {
                bounds[i] = boundsNs.get(i) / 1e9;
            }
            Child child = new Child(name, help, Labels.of(keys, values), bounds, sample);
            synchronized (BY_REGISTRY) {
                PrometheusHistograms collector = BY_REGISTRY.get(registry);
                if (collector == null) {
                    collector = new PrometheusHistograms();
                    registry.register(collector);
                    BY_REGISTRY.put(registry, collector);
                }
                for (Child c : collector.children) {
                    if (c.name.equals(name) && c.labels.equals(child.labels)) {
                        return () -> { };
                    }
                }
                collector.children.add(child);
                PrometheusHistograms owner = collector;
                return () -> {
                    synchronized (BY_REGISTRY) {
                        owner.children.remove(child);
                        if (owner.children.isEmpty() && BY_REGISTRY.get(registry) == owner) {
                            registry.unregister(owner);
                            BY_REGISTRY.remove(registry);
                        }
                    }
                };
            }
        }

        @Override
        public MetricSnapshots collect() {
            Map<String, HistogramSnapshot.Builder> families = new LinkedHashMap<>();
            for (Child c : children) {
                MetricSample s = c.sample.get();
                if (s == null || s.buckets().size() != c.bounds.length) {
                    continue;
                }
                ClassicHistogramBuckets.Builder buckets = ClassicHistogramBuckets.builder();
                long below = 0;
                for (int i = 0; i < c.bounds.length; i++) {
                    long cumulative = s.buckets().get(i);
                    buckets.bucket(c.bounds[i], Math.max(0, cumulative - below));
                    below = Math.max(below, cumulative);
                }
                buckets.bucket(Double.POSITIVE_INFINITY, Math.max(0, s.value() - below));
                families.computeIfAbsent(c.name, n -> HistogramSnapshot.builder().name(n).help(c.help))
                        .dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                                .classicHistogramBuckets(buckets.build())
                                .sum(s.sumNs() / 1e9)
                                .labels(c.labels)
                                .build());
            }
            List<MetricSnapshot> out = new ArrayList<>(families.size());
            for (HistogramSnapshot.Builder b : families.values()) {
                out.add(b.build());
            }
            return new MetricSnapshots(out);
        }
    }
}
