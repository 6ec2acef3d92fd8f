package io.zlink;

import java.util.Optional;

/** A request's terminal result: Reply, Error, Timeout, Cancelled or Shutdown. */
public sealed interface Outcome {
    /** The target's answer. */
    record Reply(byte[] payload) implements Outcome {
        @Override
        public boolean equals(Object o) {
            return o instanceof Reply r && Bytes.same(payload, r.payload);
        }

        @Override
        public int hashCode() {
            return Bytes.hash(payload);
        }

        @Override
        public String toString() {
            return "Reply[payload=" + Bytes.describe(payload) + "]";
        }
    }

    /**
     * An error reply or a route error. {@code kind}: "Handler" or "Decode" (the target answered
     * with an error: {@code code}, {@code message}), "Unavailable" (with {@code reason}) or
     * "InvalidOperation".
     */
    record Error(String kind, Optional<UnavailableReason> reason, long code, String message) implements Outcome {}

    /** The request's deadline passed first. */
    record Timeout() implements Outcome {}

    /** The caller cancelled first. */
    record Cancelled() implements Outcome {}

    /** The runtime shut down first. */
    record Shutdown() implements Outcome {}
}
