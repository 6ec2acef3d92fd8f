package io.zlink;

import java.util.Optional;

/**
 * A request's one terminal result: its correlation and operation, its target, the {@link
 * Outcome}, and the Spot execution that started it ({@code originGone}: that Spot was re-created
 * since; resume the old execution only).
 */
public record Completion(long correlation, long operationId, ObjectKind kind, String id, Outcome outcome,
        Optional<SpotExecution> origin, boolean originGone) {}
