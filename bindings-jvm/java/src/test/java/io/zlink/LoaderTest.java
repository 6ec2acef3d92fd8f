package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where the native library comes from: the jar, or the zlink.library.path property first. */
class LoaderTest {
    /** Loads the library in a child JVM with {@code properties}; its exit code and output. */
    private static String[] child(String... properties) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(properties));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new String[] {Integer.toString(p.waitFor()), out};
    }

    /** The child: starts a runtime (which loads the library) and says where from. */
    public static final class Probe {
        public static void main(String[] args) {
            try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).build()) {
                System.out.println("loaded " + rt.identity().rid());
            }
        }
    }

    @Test
    void theJarsLibraryLoadsWithNoSetting() throws Exception {
        String[] r = child();
        assertEquals("0", r[0], r[1]);
        assertTrue(r[1].contains("loaded 1"), r[1]);
        assertEquals("linux-x86_64", NativeLoader.platform());
    }

    @Test
    void zlinkLibraryPathOverridesTheJar() throws Exception {
        String[] r = child("-Dzlink.library.path=/nonexistent/zlink");
        assertTrue(!r[0].equals("0") && r[1].contains("/nonexistent/zlink"), r[1]);
        String dir = System.getProperty("zlink.test.native.dir");
        if (dir != null) {
            String[] ok = child("-Dzlink.library.path=" + dir);
            assertEquals("0", ok[0], ok[1]);
        }
    }
}
