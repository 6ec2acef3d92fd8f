package io.zlink;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The JVM runner of the language-neutral scenario suite ({@code testdata/scenarios/*.json},
 * format in its README): plays every file over the Java API as a small host would ({@link
 * ScenarioHost}, {@link ScenarioSteps}, {@link ScenarioExpectations}), with the semantics of the
 * Rust reference runner ({@code core/tests/scenarios.rs}) and the Python one, and fails naming
 * the language, the scenario and the step that did not give what the file says.
 */
class ScenarioTest {
    private static final String LANGUAGE = "jvm";

    /**
     * {@code testdata/scenarios}: under the {@code zlink.testdata} directory if that property is
     * set, else the first {@code testdata/scenarios} above the working directory (Maven runs in
     * {@code bindings-jvm/java}).
     */
    static Path scenarios() {
        String given = System.getProperty("zlink.testdata");
        if (given != null) {
            return Path.of(given).resolve("scenarios");
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path dir = p.resolve("testdata").resolve("scenarios");
            if (Files.isDirectory(dir)) {
                return dir;
            }
        }
        throw new IllegalStateException("no testdata/scenarios above " + Path.of("").toAbsolutePath());
    }

    private static List<Path> files() throws IOException {
        try (Stream<Path> files = Files.list(scenarios())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
        }
    }

    @Test
    void thereAreAtLeast40Scenarios() throws IOException {
        List<Path> files = files();
        assertTrue(files.size() >= 40, LANGUAGE + ": only " + files.size() + " scenarios in " + scenarios());
    }

    /** Hits the nodes' near caches served over the suite: the scenarios ran through them. */
    private static final AtomicLong NEAR_HITS = new AtomicLong();

    @TestFactory
    Stream<DynamicTest> everyScenarioPasses() throws IOException {
        Stream<DynamicTest> each = files().stream().map(path -> {
            String file = path.getFileName().toString();
            String name = file.substring(0, file.length() - ".json".length());
            return DynamicTest.dynamicTest(name, path.toUri(), () -> scenario(name, path));
        });
        // Last: resolve and lookup_cached steps went through the near cache (docs/jvm.md).
        return Stream.concat(each, Stream.of(DynamicTest.dynamicTest("near cache served hits",
                () -> assertTrue(NEAR_HITS.get() > 0, LANGUAGE + ": no scenario step was a near hit"))));
    }

    /** Reads and plays one file; a failure names the language, the scenario and the step. */
    private static void scenario(String name, Path path) throws IOException {
        JsonObject scenario;
        try {
            scenario = JsonParser.parseString(Files.readString(path)).getAsJsonObject();
        } catch (JsonParseException | IllegalStateException e) {
            fail(LANGUAGE + ": " + name + ": not JSON: " + e.getMessage(), e);
            return;
        }
        if (!name.equals(ScenarioJson.text(scenario, "name"))) {
            fail(LANGUAGE + ": " + name + ": its \"name\" is not its file name");
        }
        try {
            play(scenario);
        } catch (ScenarioFailure e) {
            fail(LANGUAGE + ": " + name + ": " + e.getMessage(), e.getCause());
        } catch (RuntimeException e) {
            // Outside any step: the nodes could not be started or closed.
            fail(LANGUAGE + ": " + name + ": " + ScenarioHost.described(e), e);
        }
    }

    /** Plays one scenario; the failure names the step. */
    private static void play(JsonObject scenario) {
        if (ScenarioJson.value(scenario, "steps") == null) {
            throw ScenarioJson.fail("no steps");
        }
        List<JsonElement> steps = ScenarioJson.array(scenario, "steps");
        // A scenario whose nodes must not start: its first step is `build`, alone.
        if (!steps.isEmpty() && "build".equals(ScenarioJson.text(ScenarioJson.object(steps.get(0)), "do"))) {
            try {
                build(ScenarioJson.object(steps.get(0)));
            } catch (ScenarioFailure e) {
                throw new ScenarioFailure("step 1 (build): " + e.getMessage(), e.getCause());
            }
            return;
        }
        try (ScenarioHost host = new ScenarioHost(scenario)) {
            // Scenarios expecting no counters also look each route up again through the near cache.
            boolean counted = steps.stream().anyMatch(s -> s.isJsonObject() && s.getAsJsonObject().has("stats"));
            ScenarioSteps run = new ScenarioSteps(host, !counted);
            for (int i = 0; i < steps.size(); i++) {
                JsonObject step = ScenarioJson.object(steps.get(i));
                String what = ScenarioJson.text(step, "do");
                String where = "step " + (i + 1) + " (" + (what == null ? "?" : what) + "): ";
                try {
                    run.run(step);
                } catch (ScenarioFailure e) {
                    throw new ScenarioFailure(where + e.getMessage(), e.getCause());
                } catch (RuntimeException e) {
                    // A call the host could not make (an exception no step expected).
                    throw new ScenarioFailure(where + ScenarioHost.described(e), e);
                }
            }
            host.nodes.forEach(n -> NEAR_HITS.addAndGet(n.nearHits()));
        }
    }

    /**
     * A scenario whose nodes must not start: the config is refused with the rule's name
     * ({@link RoutingConfig.Builder#build()} checks it; a runtime built with it is tried too
     * should it pass). No expected error: the config must be accepted.
     */
    private static void build(JsonObject step) {
        JsonObject expect = ScenarioJson.object(step, "expect");
        String want = expect == null ? null : ScenarioJson.text(expect, "error");
        String got = null;
        String detail = "";
        RuntimeException cause = null;
        try (ManualClock clock = new ManualClock(); MemoryStore store = new MemoryStore(clock)) {
            RoutingConfig config = ScenarioJson.config(ScenarioJson.object(step, "config"));
            ZlinkRuntime.builder(new NodeIdentity("scenario", 1, 1, 1)).config(config).store(store).clock(clock)
                    .build().close();
        } catch (RuntimeException e) {
            if (!(e instanceof ZlinkError z)) {
                throw e;
            }
            got = z.kind();
            detail = " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")";
            cause = e;
        }
        if (got == null ? want != null : !got.equals(want)) {
            throw new ScenarioFailure("config error " + ScenarioJson.repr(got) + detail + ", expected "
                    + ScenarioJson.repr(want), cause);
        }
    }
}
