package io.zlink;

import java.util.Objects;

/** One encoded frame for the host to carry to node {@code to}. */
public record Outbound(NodeRef to, byte[] bytes) {
    /** A frame and its destination (both required). */
    public Outbound {
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(bytes, "bytes");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Outbound x && to.equals(x.to) && Bytes.same(bytes, x.bytes);
    }

    @Override
    public int hashCode() {
        return 31 * to.hashCode() + Bytes.hash(bytes);
    }

    @Override
    public String toString() {
        return "Outbound[to=" + to + ", bytes=" + Bytes.describe(bytes) + "]";
    }
}
