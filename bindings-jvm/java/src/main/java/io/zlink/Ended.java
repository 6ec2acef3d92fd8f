package io.zlink;

import java.util.Optional;

/**
 * One of this runtime's one-way operations ended without delivery: {@code failure} is {@code
 * "Unavailable"} (with {@code reason}) or {@code "InvalidOperation"}.
 */
public record Ended(long operationId, ObjectKind kind, String id, String failure,
        Optional<UnavailableReason> reason) implements Inbound {}
