package io.zlink;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/** Text and payloads as the native side takes them. */
final class Utf8 {
    private Utf8() {}

    /**
     * The UTF-8 bytes of {@code s}, refusing a string that is not valid Unicode (a lone
     * surrogate): {@code getBytes} would replace it with {@code '?'} and alias another ID.
     */
    static byte[] of(String s, String what) {
        Objects.requireNonNull(s, what);
        try {
            ByteBuffer b = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(s));
            return Arrays.copyOfRange(b.array(), b.arrayOffset() + b.position(), b.arrayOffset() + b.limit());
        } catch (CharacterCodingException e) {
            throw new ZlinkInputException(what + " is not valid Unicode (a lone surrogate)", "InvalidUtf8", null);
        }
    }

    /** The remaining bytes of {@code b}, leaving its position where it was. */
    static byte[] of(ByteBuffer b, String what) {
        ByteBuffer d = Objects.requireNonNull(b, what).duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    /** A duration in milliseconds, refusing a negative one. */
    static long millis(java.time.Duration d, String what) {
        if (d.isNegative()) {
            throw new ZlinkInputException(what + " must be >= 0 ms, got " + d.toMillis(), "Negative", null);
        }
        return d.toMillis();
    }
}
