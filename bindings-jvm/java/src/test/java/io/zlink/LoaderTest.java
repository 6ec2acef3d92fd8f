package io.zlink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the native library comes from: the zlink.library.path property first, else the jar's,
 * extracted once into a cache directory (zlink.library.dir, ZLINK_LIBRARY_DIR, XDG_CACHE_HOME,
 * ~/.cache) or, if that cannot be used, a private temporary one.
 */
class LoaderTest {
    private static final String RESOURCE = "native/" + NativeLoader.platform() + "/libzlink_jni.so";

    @TempDir
    Path tmp;

    /** A child JVM's exit code and output. */
    record Run(int code, String out) {
        void ok() {
            assertEquals(0, code, out);
            assertTrue(out.contains("loaded 1"), out);
        }
    }

    /**
     * Loads the library in a child JVM with {@code env} (on top of ours, without the settings
     * that choose the cache directory) and {@code properties}.
     */
    private static Run child(Map<String, String> env, String... properties) throws IOException, InterruptedException {
        return await(start(env, properties));
    }

    private static Process start(Map<String, String> env, String... properties) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(properties));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove(NativeLoader.DIR_ENV);
        pb.environment().remove("XDG_CACHE_HOME");
        pb.environment().putAll(env);
        return pb.start();
    }

    private static Run await(Process p) throws IOException, InterruptedException {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        return new Run(p.exitValue(), out);
    }

    /** The child: starts a runtime (which loads the library) and says so. */
    public static final class Probe {
        public static void main(String[] args) {
            try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).build()) {
                System.out.println("loaded " + rt.identity().rid());
            }
        }
    }

    /** The library files in {@code dir}. */
    private static List<Path> libraries(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches("libzlink_jni-.*\\.so")).sorted().toList();
        }
    }

    /** Everything in {@code dir}. */
    private static List<Path> everything(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    /** The library in the jar (the test class path), byte for byte. */
    private static byte[] packaged() throws IOException {
        try (InputStream in = NativeLoader.class.getResourceAsStream(RESOURCE)) {
            assertNotNull(in, RESOURCE + " is not on the class path");
            return in.readAllBytes();
        }
    }

    private Path dir(String name) throws IOException {
        return Files.createDirectories(tmp.resolve(name));
    }

    @Test
    void theJarsLibraryLoadsWithNoSetting() throws Exception {
        Path home = dir("home");
        Path temp = dir("t");
        child(Map.of(), "-Duser.home=" + home, "-Djava.io.tmpdir=" + temp).ok();
        assertEquals(1, libraries(home.resolve(".cache/zlink")).size(), "extracted into ~/.cache/zlink");
        assertEquals(List.of(), everything(temp), "nothing in the temporary directory");
        assertEquals("linux-x86_64", NativeLoader.platform());
    }

    @Test
    void theLibraryIsExtractedOnceAndLaterJvmsLoadTheSameFile() throws Exception {
        Path xdg = dir("xdg");
        Path temp = dir("t");
        Path cache = xdg.resolve("zlink");
        child(Map.of("XDG_CACHE_HOME", xdg.toString()), "-Djava.io.tmpdir=" + temp).ok();
        List<Path> libs = libraries(cache);
        assertEquals(1, libs.size(), libs.toString());
        Path lib = libs.get(0);
        // Named by the jar's version and the library's CRC-32; the library byte for byte.
        assertTrue(lib.getFileName().toString().matches("libzlink_jni-0\\.1\\.0-[0-9a-f]{8}\\.so"), lib.toString());
        assertArrayEquals(packaged(), Files.readAllBytes(lib));
        assertEquals(List.of(lib), everything(cache), "no temporary file left");
        assertEquals(List.of(), everything(temp), "nothing in the temporary directory");
        var before = Files.readAttributes(lib, BasicFileAttributes.class);

        child(Map.of("XDG_CACHE_HOME", xdg.toString()), "-Djava.io.tmpdir=" + temp).ok();
        var after = Files.readAttributes(lib, BasicFileAttributes.class);
        assertEquals(before.fileKey(), after.fileKey(), "the same file, not written again");
        assertEquals(before.lastModifiedTime(), after.lastModifiedTime());
        assertEquals(List.of(lib), everything(cache));
        assertEquals(List.of(), everything(temp));
    }

    @Test
    void theCacheDirectoryIsSetByThePropertyOrTheEnvironment() throws Exception {
        Path env = tmp.resolve("env");
        Path prop = tmp.resolve("prop");
        child(Map.of(NativeLoader.DIR_ENV, env.toString())).ok();
        assertEquals(1, libraries(env).size());
        child(Map.of(NativeLoader.DIR_ENV, tmp.resolve("unused").toString()), "-Dzlink.library.dir=" + prop).ok();
        assertEquals(1, libraries(prop).size(), "the property wins");
        assertFalse(Files.exists(tmp.resolve("unused")));
    }

    @Test
    void aDamagedOrDifferentCachedFileIsReplaced() throws Exception {
        Path cache = tmp.resolve("cache");
        String setting = "-Dzlink.library.dir=" + cache;
        child(Map.of(), setting).ok();
        Path lib = libraries(cache).get(0);
        byte[] good = packaged();
        // Cut short (a full disk), then the same size with other bytes.
        Files.write(lib, java.util.Arrays.copyOf(good, good.length / 2));
        child(Map.of(), setting).ok();
        assertArrayEquals(good, Files.readAllBytes(lib));
        byte[] other = good.clone();
        other[other.length / 2] ^= 1;
        Files.write(lib, other);
        child(Map.of(), setting).ok();
        assertArrayEquals(good, Files.readAllBytes(lib));
        assertEquals(List.of(lib), everything(cache));
    }

    @Test
    void anUnusableCacheDirectoryFallsBackToAPrivateTemporaryOne() throws Exception {
        Path blocker = Files.writeString(tmp.resolve("a-file"), "not a directory");
        Path temp = dir("t");
        Run r = child(Map.of(), "-Dzlink.library.dir=" + blocker.resolve("zlink"), "-Djava.io.tmpdir=" + temp);
        r.ok();
        // Said once, naming the directory and the setting.
        assertTrue(r.out().contains(blocker.resolve("zlink").toString()) && r.out().contains("zlink.library.dir"), r.out());
        assertEquals(List.of(), everything(temp), "the temporary copy is deleted at exit");
    }

    @Test
    void whenNothingWorksTheErrorNamesEveryPlaceTriedAndTheSettings() throws Exception {
        Path blocker = Files.writeString(tmp.resolve("a-file"), "not a directory");
        Path cache = blocker.resolve("zlink");
        Path temp = blocker.resolve("tmp");
        Run r = child(Map.of(), "-Dzlink.library.dir=" + cache, "-Djava.io.tmpdir=" + temp);
        assertNotEquals(0, r.code(), r.out());
        assertTrue(r.out().contains("UnsatisfiedLinkError"), r.out());
        for (String s : new String[] {cache.toString(), temp.toString(), "-Dzlink.library.dir=", NativeLoader.DIR_ENV,
                "noexec", "-Dzlink.library.path="}) {
            assertTrue(r.out().contains(s), s + " in " + r.out());
        }
    }

    /** A writable file system mounted noexec (/proc/mounts), if this machine has one. */
    private static Path noexecMount() throws IOException {
        Path mounts = Path.of("/proc/mounts");
        if (!Files.isReadable(mounts)) {
            return null;
        }
        for (String line : Files.readAllLines(mounts)) {
            String[] f = line.split(" ");
            if (f.length > 3 && List.of(f[3].split(",")).contains("noexec") && List.of(f[3].split(",")).contains("rw")) {
                Path p = Path.of(f[1].replace("\\040", " "));
                if (Files.isDirectory(p) && Files.isWritable(p) && !f[1].startsWith("/proc") && !f[1].startsWith("/sys")
                        && !f[1].startsWith("/dev/pts")) {
                    return p;
                }
            }
        }
        return null;
    }

    @Test
    void aNoexecCacheDirectoryFallsBackToATemporaryOne() throws Exception {
        Path mount = noexecMount();
        Assumptions.assumeTrue(mount != null, "no writable noexec file system here");
        Path cache = Files.createTempDirectory(mount, "zlink-loader-test-");
        try {
            Run r = child(Map.of(), "-Dzlink.library.dir=" + cache, "-Djava.io.tmpdir=" + dir("t"));
            r.ok();
            assertTrue(r.out().contains(cache.toString()), r.out());
        } finally {
            try (Stream<Path> s = Files.list(cache)) {
                for (Path p : s.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(cache);
        }
    }

    @Test
    void jvmsStartingTogetherShareOneExtractedFile() throws Exception {
        Path cache = tmp.resolve("shared");
        List<Process> all = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            all.add(start(new HashMap<>(), "-Dzlink.library.dir=" + cache));
        }
        for (Process p : all) {
            await(p).ok();
        }
        List<Path> libs = libraries(cache);
        assertEquals(1, libs.size(), libs.toString());
        assertEquals(libs, everything(cache), "no temporary file left");
        assertArrayEquals(packaged(), Files.readAllBytes(libs.get(0)));
    }

    @Test
    void zlinkLibraryPathOverridesTheJar() throws Exception {
        Run r = child(Map.of(), "-Dzlink.library.path=/nonexistent/zlink");
        assertTrue(r.code() != 0 && r.out().contains("/nonexistent/zlink"), r.out());
        String dir = System.getProperty("zlink.test.native.dir");
        if (dir != null) {
            child(Map.of(), "-Dzlink.library.path=" + dir).ok();
        }
    }

    /** The names of an ELF64 little-endian file's sections. */
    private static List<String> sections(byte[] elf) {
        ByteBuffer b = ByteBuffer.wrap(elf).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x7f, elf[0]);
        assertEquals("ELF", new String(elf, 1, 3, StandardCharsets.US_ASCII));
        assertEquals(2, elf[4], "64-bit");
        assertEquals(1, elf[5], "little-endian");
        long shoff = b.getLong(0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(0x3A));
        int shnum = Short.toUnsignedInt(b.getShort(0x3C));
        int shstrndx = Short.toUnsignedInt(b.getShort(0x3E));
        long names = b.getLong((int) (shoff + (long) shstrndx * shentsize + 0x18));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < shnum; i++) {
            int at = (int) (names + b.getInt((int) (shoff + (long) i * shentsize)));
            int end = at;
            while (elf[end] != 0) {
                end++;
            }
            out.add(new String(elf, at, end - at, StandardCharsets.US_ASCII));
        }
        return out;
    }

    @Test
    void thePackagedLibraryIsStripped() throws Exception {
        List<String> names = sections(packaged());
        assertTrue(names.contains(".dynsym") && names.contains(".text"), names.toString());
        for (String name : names) {
            assertFalse(name.equals(".symtab") || name.startsWith(".debug"),
                    "the jar's library keeps " + name + ": build it with bindings-jvm/scripts/test.sh, which strips it");
        }
    }
}
