package io.zlink;

import java.util.Objects;

/**
 * Who a runtime is: its mesh name (1..23 bytes), routing ID, node generation and owner lease
 * generation.
 */
public record NodeIdentity(String mesh, long rid, long generation, long lease) {
    /** An identity; {@code mesh} is required (checked further when a runtime starts). */
    public NodeIdentity {
        Objects.requireNonNull(mesh, "mesh");
    }

    /** Generation 1, lease 1. */
    public NodeIdentity(String mesh, long rid) {
        this(mesh, rid, 1, 1);
    }
}
