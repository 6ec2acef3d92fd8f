package io.zlink;

import java.util.Objects;

/**
 * The strict frame codec (docs/wire.md), for hosts and tests: {@link #decode} checks one whole
 * frame and describes it as the golden vectors of {@code testdata/wire} do.
 */
public final class Wire {
    private Wire() {}

    /** One decoded frame: its command's name, its JSON description, its exact bytes. */
    public record Frame(String command, String json, byte[] bytes) {
        /** The frame encoded again (byte for byte what was decoded). */
        public byte[] encode() {
            return bytes.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Frame f && command.equals(f.command) && json.equals(f.json)
                    && Bytes.same(bytes, f.bytes);
        }

        @Override
        public int hashCode() {
            return json.hashCode() * 31 + Bytes.hash(bytes);
        }

        @Override
        public String toString() {
            return "Frame[command=" + command + ", json=" + json + ", bytes=" + Bytes.describe(bytes) + "]";
        }
    }

    /** Decodes one frame with the default limits; a {@link WireException} (with its kind) otherwise. */
    public static Frame decode(byte[] data) {
        return decode(data, -1, -1, -1);
    }

    /** Decodes one frame with these limits (bytes; -1 for a default). */
    public static Frame decode(byte[] data, long maxObjectIdBytes, long maxPayloadBytes, long maxStateBytes) {
        Objects.requireNonNull(data, "data");
        Decoder d = Decoder.of(Native.wireDecode(data, maxObjectIdBytes, maxPayloadBytes, maxStateBytes));
        return new Frame(d.str(), d.str(), d.bytes());
    }
}
