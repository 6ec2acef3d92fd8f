package io.zlink;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ZlinkMetrics: the runtime's metrics through Micrometer, scraped by its Prometheus registry. */
class MetricsTest {
    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");

    private MemoryStore store;
    private ZlinkRuntime owner;
    private ZlinkRuntime reader;

    @BeforeEach
    void start() {
        store = new MemoryStore();
        owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
        reader = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build();
        // One store read (the miss), then a cache hit: two ready routes.
        owner.activate(ObjectKind.ACTOR, "user-42");
        reader.resolve(ObjectKind.ACTOR, "user-42");
        reader.resolve(ObjectKind.ACTOR, "user-42");
    }

    @AfterEach
    void stop() {
        reader.close();
        owner.close();
        store.close();
    }

    @Test
    void aPrometheusScrapeHasTheLatencyHistogramAndTheCountersAndPassesPromtool() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (var metrics = new ZlinkMetrics(reader)) {
            metrics.bindTo(registry);
            String text = registry.scrape();
            Map<String, Double> scraped = series(text);

            assertEquals(1.0, scraped.get("zlink_store_read_duration_seconds_count"), text);
            assertTrue(scraped.get("zlink_store_read_duration_seconds_sum") > 0, text);
            assertEquals(1.0, scraped.get("zlink_store_read_duration_seconds_bucket{le=\"+Inf\"}"), text);
            assertTrue(text.contains("# TYPE zlink_store_read_duration_seconds histogram\n"), text);
            assertEquals(1.0, scraped.get("zlink_cache_hits_total"), text);
            assertEquals(2.0, scraped.get("zlink_resolutions_total{result=\"ready_route\"}"), text);
            promtool(text);

            // Every series of zlink's own text exposition is in the scrape, same name, same
            // labels (an le compared as a number), same value: the names Micrometer's Prometheus
            // convention gives the OpenTelemetry-style names are zlink's Prometheus names.
            Map<String, Double> own = series(reader.metricsText());
            for (var e : own.entrySet()) {
                assertEquals(e.getValue(), scraped.get(e.getKey()), e.getKey() + " in\n" + text);
            }
            for (MetricFamily f : reader.metrics()) {
                assertTrue(text.contains("# TYPE " + f.name() + " " + f.kind() + "\n")
                                || text.contains("# TYPE " + f.name().replaceFirst("_total$", "") + " " + f.kind() + "\n"),
                        f.name() + " " + f.kind() + " in\n" + text);
            }
        }
        assertFalse(registry.scrape().contains("zlink_"), "close() removes every meter and histogram");
    }

    @Test
    void anyOtherRegistryGetsAFunctionTimerAndOneGaugePerBucket() {
        var registry = new SimpleMeterRegistry();
        new ZlinkMetrics(reader).bindTo(registry);

        FunctionTimer read = registry.get("zlink.store.read.duration").functionTimer();
        assertEquals(1.0, read.count());
        assertTrue(read.totalTime(TimeUnit.NANOSECONDS) > 0);
        MetricSample sample = family("zlink_store_read_duration_seconds").samples().get(0);
        // The total goes through seconds and back: equal to within rounding.
        assertEquals((double) sample.sumNs(), read.totalTime(TimeUnit.NANOSECONDS), 0.5);
        List<Long> bounds = family("zlink_store_read_duration_seconds").boundsNs();
        for (int i = 0; i < bounds.size(); i++) {
            String le = ZlinkMetrics.seconds(bounds.get(i));
            Gauge g = registry.get("zlink.store.read.duration.histogram").tag("le", le).gauge();
            assertEquals((double) sample.buckets().get(i), g.value(), le);
        }
        assertEquals("0.00005", ZlinkMetrics.seconds(bounds.get(0)));
        assertEquals("10", ZlinkMetrics.seconds(bounds.get(bounds.size() - 1)));
        assertEquals(1.0, registry.get("zlink.store.read.duration.histogram").tag("le", "+Inf").gauge().value());

        FunctionCounter ready = registry.get("zlink.resolutions").tag("result", "ready_route").functionCounter();
        assertEquals(2.0, ready.count());
        assertEquals(1.0, registry.get("zlink.cache_hits").functionCounter().count());
        assertEquals(1.0, registry.get("zlink.cache_entries").gauge().value());
    }

    @Test
    void aScrapeReadsTheRuntimeOnce() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (var metrics = new ZlinkMetrics(reader)) {
            metrics.bindTo(registry);
            assertEquals(1, metrics.reads(), "bindTo reads once to learn the families");
            Thread.sleep(ZlinkMetrics.DEFAULT_MAX_AGE.toMillis() + 50);
            registry.scrape();
            assertEquals(2, metrics.reads(), "about 80 meters, one read");
            var simple = new SimpleMeterRegistry();
            metrics.bindTo(simple);
            Thread.sleep(ZlinkMetrics.DEFAULT_MAX_AGE.toMillis() + 50);
            assertEquals(3, metrics.reads(), "a second bindTo reads once");
            int measured = 0;
            for (Meter m : simple.getMeters()) { // what a publish does
                for (Measurement x : m.measure()) {
                    x.getValue();
                    measured++;
                }
            }
            assertTrue(measured > 100, "measured " + measured);
            assertEquals(4, metrics.reads(), "every meter read, the runtime once");
        }
    }

    @Test
    void theMetersShareOneReadForMaxAge() {
        var slow = new SimpleMeterRegistry();
        var live = new SimpleMeterRegistry();
        new ZlinkMetrics(reader, Tags.empty(), Duration.ofHours(1)).bindTo(slow);
        new ZlinkMetrics(reader, Tags.empty(), Duration.ZERO).bindTo(live);
        reader.resolve(ObjectKind.ACTOR, "user-42");
        assertEquals(1.0, slow.get("zlink.cache_hits").functionCounter().count(), "the read at bindTo");
        assertEquals(2.0, live.get("zlink.cache_hits").functionCounter().count());
        assertThrows(IllegalArgumentException.class,
                () -> new ZlinkMetrics(reader, Tags.empty(), Duration.ofMillis(-1)));
    }

    @Test
    void aClosedRuntimeKeepsItsLastValuesAndNoScrapeThrows() throws Exception {
        var prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        var simple = new SimpleMeterRegistry();
        var metrics = new ZlinkMetrics(reader, Tags.empty(), Duration.ZERO);
        metrics.bindTo(prometheus);
        metrics.bindTo(simple);
        String before = prometheus.scrape();
        reader.close();
        String after = prometheus.scrape();
        assertEquals(series(before), series(after));
        promtool(after);
        assertEquals(2.0, simple.get("zlink.resolutions").tag("result", "ready_route").functionCounter().count());
        assertEquals(1.0, simple.get("zlink.store.read.duration").functionTimer().count());
        assertThrows(ZlinkClosedException.class, () -> metrics.bindTo(new SimpleMeterRegistry()));
        metrics.close();
        assertTrue(simple.getMeters().isEmpty());
    }

    @Test
    void twoRuntimesOnOneRegistryAreToldApartByTags() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        var ofOwner = new ZlinkMetrics(owner, Tags.of("node", "1"));
        var ofReader = new ZlinkMetrics(reader, Tags.of("node", "2"));
        ofOwner.bindTo(registry);
        ofReader.bindTo(registry);
        ofReader.bindTo(registry); // twice: the same meters, the same histograms
        String text = registry.scrape();
        Map<String, Double> scraped = series(text);
        assertEquals(0.0, scraped.get("zlink_store_read_duration_seconds_count{node=\"1\"}"), text);
        assertEquals(1.0, scraped.get("zlink_store_read_duration_seconds_count{node=\"2\"}"), text);
        assertEquals(2.0, scraped.get("zlink_resolutions_total{node=\"2\",result=\"ready_route\"}"), text);
        assertTrue(scraped.get("zlink_store_write_duration_seconds_count{node=\"1\"}") >= 1, text);
        promtool(text);

        ofReader.close();
        scraped = series(registry.scrape());
        assertNull(scraped.get("zlink_store_read_duration_seconds_count{node=\"2\"}"));
        assertNotNull(scraped.get("zlink_store_read_duration_seconds_count{node=\"1\"}"));
        ofOwner.close();
        assertFalse(registry.scrape().contains("zlink_"));
    }

    @Test
    void theRegistrysMeterFiltersReachTheHistograms() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().commonTags("app", "orders");
        registry.config().meterFilter(MeterFilter.denyNameStartsWith("zlink.bind"));
        new ZlinkMetrics(reader).bindTo(registry);
        String text = registry.scrape();
        Map<String, Double> scraped = series(text);
        assertEquals(1.0, scraped.get("zlink_store_read_duration_seconds_count{app=\"orders\"}"), text);
        assertEquals(1.0, scraped.get("zlink_cache_hits_total{app=\"orders\"}"), text);
        assertFalse(text.contains("zlink_bind_duration_seconds"), text);
        promtool(text);
    }

    private MetricFamily family(String name) {
        return reader.metrics().stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow();
    }

    /** {@code promtool check metrics} (the Prometheus project's linter) must accept {@code text}. */
    static void promtool(String text) throws Exception {
        if (!Files.isExecutable(PROMTOOL)) {
            fail(PROMTOOL + " is missing: scripts/install-deps.sh installs it (Debian's prometheus package)");
        }
        Process p = new ProcessBuilder(PROMTOOL.toString(), "check", "metrics").redirectErrorStream(true).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(text.getBytes(UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        assertEquals(0, p.exitValue(), "promtool check metrics said:\n" + out + "\nof:\n" + text);
    }

    private static final Pattern LABEL = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /**
     * The samples of a text exposition: {@code name{labels}} (labels sorted by name; an {@code le}
     * written as Java writes its number, so {@code 0.00005} and {@code 5.0E-5} are one) to value.
     */
    static Map<String, Double> series(String text) {
        Map<String, Double> out = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String key = line.substring(0, space);
            double value = Double.parseDouble(line.substring(space + 1));
            int brace = key.indexOf('{');
            if (brace >= 0) {
                Map<String, String> labels = new TreeMap<>();
                Matcher m = LABEL.matcher(key.substring(brace));
                while (m.find()) {
                    String v = m.group(2);
                    if (m.group(1).equals("le") && !v.equals("+Inf")) {
                        v = Double.toString(Double.parseDouble(v));
                    }
                    labels.put(m.group(1), v);
                }
                StringBuilder k = new StringBuilder(key.substring(0, brace)).append('{');
                labels.forEach((n, v) -> k.append(k.charAt(k.length() - 1) == '{' ? "" : ",")
                        .append(n).append("=\"").append(v).append('"'));
                key = k.append('}').toString();
            }
            out.put(key, value);
        }
        return out;
    }
}
