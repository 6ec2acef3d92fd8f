package io.zlink;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads libzlink_jni once: from the {@code zlink.library.path} system property (the library
 * file, or a directory holding it) if set; else from the jar, where it lives under {@code
 * io/zlink/native/<os>-<arch>/}, extracted to a temporary file; else from {@code
 * java.library.path}.
 */
final class NativeLoader {
    static final String PROPERTY = "zlink.library.path";
    private static final String FILE = System.mapLibraryName("zlink_jni");

    private NativeLoader() {}

    static void load() {
        String override = System.getProperty(PROPERTY);
        if (override != null && !override.isEmpty()) {
            Path path = Path.of(override);
            System.load((Files.isDirectory(path) ? path.resolve(FILE) : path).toAbsolutePath().toString());
            return;
        }
        String resource = "native/" + platform() + "/" + FILE;
        try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
            if (in != null) {
                Path tmp = Files.createTempFile("zlink_jni", FILE);
                tmp.toFile().deleteOnExit();
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                System.load(tmp.toAbsolutePath().toString());
                return;
            }
        } catch (IOException e) {
            throw new UnsatisfiedLinkError("cannot extract " + resource + ": " + e);
        }
        System.loadLibrary("zlink_jni");
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
