package io.zlink;

import java.util.Objects;

/**
 * The Spot execution that starts a request: its {@link Completion} names it, and says {@code
 * originGone} when that Spot was re-created since.
 */
public record SpotExecution(String spot, long objectGeneration) {
    /** An execution of Spot {@code spot} (required) at its {@code objectGeneration}. */
    public SpotExecution {
        Objects.requireNonNull(spot, "spot");
    }
}
