package io.zlink;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.zip.CRC32;

/**
 * Loads libzlink_jni once, from the first of:
 *
 * <ol>
 *   <li>the {@code zlink.library.path} system property: the library file, or a directory holding
 *       it, loaded as it is;
 *   <li>the jar, where it lives under {@code io/zlink/native/<os>-<arch>/}: extracted once per
 *       library version and content into a cache directory, then loaded from there, so later
 *       JVMs load the same file and extract nothing. The directory is the {@code
 *       zlink.library.dir} system property, else the {@code ZLINK_LIBRARY_DIR} environment
 *       variable, else {@code $XDG_CACHE_HOME/zlink}, else {@code ~/.cache/zlink}. If it cannot
 *       be used (not writable, or on a file system mounted {@code noexec}, where the library does
 *       not load), a fresh private directory in {@code java.io.tmpdir}, deleted at exit. If
 *       neither works, an {@link UnsatisfiedLinkError} names every place tried, why it failed,
 *       and the settings;
 *   <li>{@code java.library.path}, when the jar has no library for the platform.
 * </ol>
 *
 * <p>The cached file is named {@code libzlink_jni-<version>-<crc32>.so}: the content's CRC-32 is
 * the one the jar records for the entry (read without decompressing it). A file already there is
 * used if its size and CRC-32 are the library's; otherwise (a different, truncated or damaged
 * file) it is replaced. A JVM writes to a temporary file in the same directory and renames it
 * into place atomically, so JVMs starting together each see either no file or a complete one.
 */
final class NativeLoader {
    /** The library file itself, or its directory: nothing is extracted. */
    static final String PROPERTY = "zlink.library.path";
    /** Where the jar's library is extracted to (a directory). */
    static final String DIR_PROPERTY = "zlink.library.dir";
    /** {@link #DIR_PROPERTY} from the environment (the property wins). */
    static final String DIR_ENV = "ZLINK_LIBRARY_DIR";
    private static final String NAME = "zlink_jni";
    private static final String FILE = System.mapLibraryName(NAME);

    private NativeLoader() {}

    static void load() {
        String override = System.getProperty(PROPERTY);
        if (override != null && !override.isEmpty()) {
            Path path = Path.of(override);
            System.load((Files.isDirectory(path) ? path.resolve(FILE) : path).toAbsolutePath().toString());
            return;
        }
        String resource = "native/" + platform() + "/" + FILE;
        URL url = NativeLoader.class.getResource(resource);
        if (url == null) {
            System.loadLibrary(NAME);
            return;
        }
        Library library = Library.of(url, resource);
        List<String> tried = new ArrayList<>();
        Place cache = cacheDir();
        if (cache.dir != null) {
            try {
                System.load(library.extractTo(cache.dir, true).toString());
                return;
            } catch (IOException | UncheckedIOException | UnsatisfiedLinkError | SecurityException e) {
                tried.add(cache.dir + " (" + cache.what + "): " + e);
            }
        } else {
            tried.add(cache.what);
        }
        String tmp = System.getProperty("java.io.tmpdir");
        Path fresh = null;
        try {
            fresh = Files.createTempDirectory(Path.of(tmp), "zlink-");
            fresh.toFile().deleteOnExit();
            Path file = library.extractTo(fresh, false);
            file.toFile().deleteOnExit();
            System.load(file.toString());
            System.getLogger("io.zlink").log(cache.chosen ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
                    "zlink: loaded " + FILE + " from the temporary directory " + fresh + ", extracted for this JVM only: "
                    + tried.get(0) + "; set -D" + DIR_PROPERTY + " (or " + DIR_ENV + ") to a usable directory");
            return;
        } catch (IOException | UncheckedIOException | UnsatisfiedLinkError | SecurityException | IllegalArgumentException e) {
            tried.add((fresh != null ? fresh : tmp + "/zlink-*") + " (a temporary directory in java.io.tmpdir): " + e);
        }
        throw new UnsatisfiedLinkError("cannot load " + FILE + " (" + platform() + ") from the zlink jar: tried "
                + String.join("; ", tried) + ". Set -D" + DIR_PROPERTY + "=<dir> (or the " + DIR_ENV
                + " environment variable) to a writable directory on a file system that allows executable"
                + " mappings (not mounted noexec), or -D" + PROPERTY + "=<file> to a " + FILE + " extracted"
                + " beforehand");
    }

    /** Where the library is cached: a directory (null if there is none) and how it was chosen. */
    private record Place(Path dir, String what, boolean chosen) {}

    /** The cache directory: the setting, else the XDG cache directory of the user. */
    private static Place cacheDir() {
        String property = System.getProperty(DIR_PROPERTY);
        if (property != null && !property.isEmpty()) {
            return place(property, null, "-D" + DIR_PROPERTY, true);
        }
        String env = System.getenv(DIR_ENV);
        if (env != null && !env.isEmpty()) {
            return place(env, null, DIR_ENV, true);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && xdg.startsWith("/")) {
            return place(xdg, "zlink", "$XDG_CACHE_HOME/zlink", false);
        }
        String home = System.getProperty("user.home");
        if (home == null || home.isEmpty() || home.equals("?")) {
            return new Place(null, "no cache directory (neither XDG_CACHE_HOME nor user.home is set)", false);
        }
        return place(home, ".cache/zlink", "~/.cache/zlink", false);
    }

    private static Place place(String dir, String sub, String what, boolean chosen) {
        try {
            Path p = Path.of(dir);
            return new Place(sub == null ? p : p.resolve(sub), what, chosen);
        } catch (java.nio.file.InvalidPathException e) {
            return new Place(null, what + " = " + dir + ": not a path (" + e.getMessage() + ")", chosen);
        }
    }

    /** The jar's library: where it is, its size and CRC-32, and the version of the jar. */
    record Library(URL url, String resource, long size, long crc, String version) {
        /**
         * The library at {@code url}. A jar entry's size and CRC-32 come from the jar's directory;
         * a library elsewhere (a class directory) is read once to learn them.
         */
        static Library of(URL url, String resource) {
            String version = jarVersion();
            try {
                URLConnection c = url.openConnection();
                if (c instanceof JarURLConnection j) {
                    var entry = j.getJarEntry();
                    if (entry.getSize() >= 0 && entry.getCrc() >= 0) {
                        return new Library(url, resource, entry.getSize(), entry.getCrc(), version);
                    }
                }
                CRC32 crc = new CRC32();
                long size = 0;
                try (InputStream in = c.getInputStream()) {
                    byte[] buffer = new byte[1 << 16];
                    for (int n; (n = in.read(buffer)) > 0; size += n) {
                        crc.update(buffer, 0, n);
                    }
                }
                return new Library(url, resource, size, crc.getValue(), version);
            } catch (IOException e) {
                throw new UnsatisfiedLinkError("cannot read " + resource + " from the zlink jar: " + e);
            }
        }

        /** The jar's version ({@code zlink.properties}, written by the build). */
        private static String jarVersion() {
            Properties p = new Properties();
            try (InputStream in = NativeLoader.class.getResourceAsStream("zlink.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                // unversioned: the CRC-32 still tells libraries apart
            }
            String v = p.getProperty("version", "");
            return v.isEmpty() || v.startsWith("$") ? "dev" : v.replaceAll("[^A-Za-z0-9._-]", "_");
        }

        /** The file name of this library in a cache directory. */
        String fileName() {
            int dot = FILE.lastIndexOf('.');
            return FILE.substring(0, dot) + "-" + version + "-" + String.format(Locale.ROOT, "%08x", crc)
                    + FILE.substring(dot);
        }

        /**
         * This library in {@code dir}: the file there if it is this library ({@code reuse}), else
         * written to a temporary file in {@code dir} and renamed over it atomically.
         */
        Path extractTo(Path dir, boolean reuse) throws IOException {
            Files.createDirectories(dir);
            Path target = dir.resolve(fileName()).toAbsolutePath();
            if (reuse && matches(target)) {
                return target;
            }
            Path tmp = Files.createTempFile(dir, "." + fileName() + "-", ".tmp");
            try {
                CRC32 crc32 = new CRC32();
                long n = 0;
                try (InputStream in = url.openStream(); var out = Files.newOutputStream(tmp)) {
                    byte[] buffer = new byte[1 << 16];
                    for (int r; (r = in.read(buffer)) > 0; n += r) {
                        crc32.update(buffer, 0, r);
                        out.write(buffer, 0, r);
                    }
                }
                if (n != size || crc32.getValue() != crc) {
                    throw new IOException("extracted " + n + " bytes (CRC-32 " + Long.toHexString(crc32.getValue())
                            + ") where the jar records " + size + " (" + Long.toHexString(crc) + ")");
                }
                try {
                    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
                } catch (UnsupportedOperationException e) {
                    // not a POSIX file system: its defaults
                }
                try {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    // Another JVM may have put the same library there meanwhile: use it.
                    if (!matches(target)) {
                        throw e;
                    }
                }
                return target;
            } finally {
                Files.deleteIfExists(tmp);
            }
        }

        /** Whether {@code file} is this library: its size, then its CRC-32. */
        boolean matches(Path file) throws IOException {
            if (!Files.isRegularFile(file) || Files.size(file) != size) {
                return false;
            }
            CRC32 crc32 = new CRC32();
            try (FileChannel ch = FileChannel.open(file)) {
                ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
                while (ch.read(b) > 0) {
                    b.flip();
                    crc32.update(b);
                    b.clear();
                }
            }
            return crc32.getValue() == crc;
        }
    }

    /** The jar's directory name for this machine, e.g. {@code linux-x86_64}. */
    static String platform() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String o = os.contains("linux") ? "linux" : os.contains("mac") ? "macos" : os.contains("win") ? "windows" : os;
        String a = switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> arch;
        };
        return o + "-" + a;
    }
}
