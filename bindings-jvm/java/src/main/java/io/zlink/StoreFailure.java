package io.zlink;

import java.util.Objects;

/** Whether authority exists could not be determined: retry later. */
public record StoreFailure(StoreErrorKind kind, String message) implements Resolution, SendResult {
    /** The result with its kind and the store's text (both required). */
    public StoreFailure {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(message, "message");
    }
}
