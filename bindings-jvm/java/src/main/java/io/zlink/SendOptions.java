package io.zlink;

import java.util.Objects;
import java.util.Optional;

/**
 * Options of a send or a request; each one not set keeps the core's default (no instance intent,
 * a 5 s deadline, a 5 s request timeout). Immutable: each setter returns a new value.
 *
 * @param instanceIntent a Spot call that may cold-activate a Missing Instance Spot
 * @param deadlineMs how long the call may retry the store (-1: the default)
 * @param timeoutMs requests: the request ends Timeout this long after it is sent (-1: the default)
 * @param origin requests: the Spot execution that starts it
 */
public record SendOptions(boolean instanceIntent, long deadlineMs, long timeoutMs, Optional<SpotExecution> origin) {
    /** The defaults. */
    public static final SendOptions DEFAULT = new SendOptions(false, -1, -1, Optional.empty());

    /** Options (origin required, may be empty). */
    public SendOptions {
        Objects.requireNonNull(origin, "origin");
    }

    /** With instance intent set. */
    public SendOptions withInstanceIntent(boolean on) {
        return new SendOptions(on, deadlineMs, timeoutMs, origin);
    }

    /** With a deadline, ms (checked by the call: not negative, not zero). */
    public SendOptions withDeadlineMs(long ms) {
        return new SendOptions(instanceIntent, ms, timeoutMs, origin);
    }

    /** With a request timeout, ms. */
    public SendOptions withTimeoutMs(long ms) {
        return new SendOptions(instanceIntent, deadlineMs, ms, origin);
    }

    /** With the Spot execution that starts the request. */
    public SendOptions withOrigin(SpotExecution origin) {
        return new SendOptions(instanceIntent, deadlineMs, timeoutMs, Optional.of(origin));
    }
}
