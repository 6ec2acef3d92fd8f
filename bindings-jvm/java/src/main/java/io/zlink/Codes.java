package io.zlink;

/**
 * The closed sets' stable numbers (the bridge's {@code codes}): each enum's constants are in
 * number order, so a code's constant is found by index.
 */
final class Codes {
    private Codes() {}

    /** The constant of {@code values} numbered {@code code}, where {@code first} is the number of
     * the first constant. */
    static <E extends Enum<E>> E of(E[] values, int first, int code) {
        int i = code - first;
        if (i < 0 || i >= values.length) {
            throw new ZlinkException("unknown code " + code + " for " + values[0].getDeclaringClass().getSimpleName(),
                    "Protocol", null);
        }
        return values[i];
    }
}
