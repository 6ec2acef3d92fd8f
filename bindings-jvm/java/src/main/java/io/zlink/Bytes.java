package io.zlink;

import java.util.Arrays;

/** Value semantics for the byte arrays records carry (a record compares arrays by identity). */
final class Bytes {
    private Bytes() {}

    static String describe(byte[] b) {
        return "<" + b.length + " bytes>";
    }

    static boolean same(byte[] a, byte[] b) {
        return Arrays.equals(a, b);
    }

    static int hash(byte[] b) {
        return Arrays.hashCode(b);
    }
}
