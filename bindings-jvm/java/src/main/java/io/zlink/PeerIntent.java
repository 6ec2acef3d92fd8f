package io.zlink;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * One manual endpoint's intent: the descriptor installed for it, the transport's view ({@code
 * liveness}: "connecting", "open" with {@code observedRid}, or "closed") and a newer descriptor
 * waiting for the installed one to close.
 */
public record PeerIntent(String endpoint, Optional<PeerDescriptor> installed, String liveness,
        OptionalLong observedRid, Optional<PeerDescriptor> pending) {}
