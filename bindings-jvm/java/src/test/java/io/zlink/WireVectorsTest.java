package io.zlink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The golden wire vectors of testdata/wire: every valid frame decodes to its JSON description
 * and re-encodes byte for byte; every invalid one fails with the error kind its description
 * names.
 */
class WireVectorsTest {
    static Path testdata(String name) {
        String given = System.getProperty("zlink.testdata");
        if (given != null) {
            return Path.of(given).resolve(name);
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("testdata").resolve(name))) {
                return p.resolve("testdata").resolve(name);
            }
        }
        throw new IllegalStateException("no testdata/" + name + " above " + Path.of("").toAbsolutePath());
    }

    private static List<Path> vectors(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".bin")).sorted().toList();
        }
    }

    private static JsonObject description(Path bin) throws IOException {
        String json = Files.readString(Path.of(bin.toString().replaceAll("\\.bin$", ".json")));
        return JsonParser.parseString(json).getAsJsonObject();
    }

    @Test
    void theVectorsAreThere() throws IOException {
        assertTrue(vectors(testdata("wire")).size() >= 50);
        assertTrue(vectors(testdata("wire").resolve("invalid")).size() >= 50);
    }

    @TestFactory
    Stream<DynamicTest> validVectorsDecodeAndReencodeByteForByte() throws IOException {
        return vectors(testdata("wire")).stream().map(path -> DynamicTest.dynamicTest(
                path.getFileName().toString(), () -> {
                    byte[] data = Files.readAllBytes(path);
                    JsonObject desc = description(path);
                    Wire.Frame frame = Wire.decode(data);
                    assertEquals(desc.get("command").getAsString(), frame.command());
                    assertEquals(desc.get("frame"), JsonParser.parseString(frame.json()));
                    assertArrayEquals(data, frame.encode());
                    assertEquals(desc.get("size").getAsInt(), data.length);
                    assertEquals(desc.get("command_number").getAsInt(), data[3] & 0xFF);
                }));
    }

    @TestFactory
    Stream<DynamicTest> invalidVectorsFailWithTheirKind() throws IOException {
        return vectors(testdata("wire").resolve("invalid")).stream().map(path -> DynamicTest.dynamicTest(
                path.getFileName().toString(), () -> {
                    JsonObject desc = description(path);
                    JsonObject limits = desc.getAsJsonObject("limits");
                    long state = limits.has("max_state_bytes") ? limits.get("max_state_bytes").getAsLong() : -1;
                    byte[] data = Files.readAllBytes(path);
                    WireException e = assertThrows(WireException.class, () -> Wire.decode(data,
                            limits.get("max_object_id_bytes").getAsLong(),
                            limits.get("max_payload_bytes").getAsLong(), state));
                    assertEquals(desc.getAsJsonObject("error").get("kind").getAsString(), e.kind());
                }));
    }

    @Test
    void aRuntimeDropsAnInvalidFrame() {
        try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).build()) {
            Dropped d = assertInstanceOf(Dropped.class, rt.onFrame(2, new byte[] {'Z', 'M', 1, 1}));
            assertTrue(!d.kind().isEmpty(), d.toString());
            assertEquals(1L, rt.stats().get("follow.frames_dropped"));
        }
    }
}
