package io.zlink;

import java.util.Objects;

/**
 * A confirmed Ready owner route: submit on it, carrying its fence. Past {@code
 * admissionDeadlineMs} (on the runtime clock) the route is not used.
 */
public record ReadyRoute(String mesh, long node, RouteFence fence, long admissionDeadlineMs)
        implements Resolution {
    /** A route; {@code mesh} and {@code fence} are required. */
    public ReadyRoute {
        Objects.requireNonNull(mesh, "mesh");
        Objects.requireNonNull(fence, "fence");
    }
}
