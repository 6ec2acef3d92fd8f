package io.zlink;

import java.util.Objects;

/** Authority exists but its owner cannot be used now: the operation ends. */
public record Unavailable(UnavailableReason reason) implements Resolution, SendResult, SessionSendResult {
    /** The result with its reason (required). */
    public Unavailable {
        Objects.requireNonNull(reason, "reason");
    }
}
