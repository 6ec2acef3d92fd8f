package io.zlink;

import java.util.Optional;

/**
 * A relocation call was refused; nothing changed (kind: NotOwned, TargetIsSelf,
 * AlreadyRelocating, StateTooLarge, TooManySaved, ForeignOperation, NotRelocating,
 * AfterRelayReady, Refused). For {@code Refused}, {@link #refusal()} names why.
 */
public class RelocationException extends ZlinkException {
    private static final long serialVersionUID = 1L;
    private final String refusal;

    /** An exception with its message, kind and refusal (may be null). */
    public RelocationException(String message, String kind, String refusal) {
        super(message, kind, refusal);
        this.refusal = refusal;
    }

    /** Why a {@code Refused} call was refused (e.g. AlreadyRelayReady). */
    public Optional<String> refusal() {
        return Optional.ofNullable(refusal);
    }
}
