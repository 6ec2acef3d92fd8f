package io.zlink;

import java.util.Optional;

/**
 * Carry {@code forward} to the new owner; send the {@code notice} (if any) and report it with
 * {@link ZlinkRuntime#noticeSettled}.
 */
public record Relay(Outbound forward, Optional<Notice> notice) implements Inbound {}
