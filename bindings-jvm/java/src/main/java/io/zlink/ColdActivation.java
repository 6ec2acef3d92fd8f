package io.zlink;

/** A Missing Spot with instance intent: cold-activate it, then send again. */
public record ColdActivation() implements SendResult {
    static final ColdActivation INSTANCE = new ColdActivation();
}
