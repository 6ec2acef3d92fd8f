package io.zlink;

/** An authority write did not happen (kind: AlreadyExists, NotFound, StaleGeneration, WrongState, NotLeaseHolder, LeaseExpired, NotOwned, ...). Re-read and decide again. */
public class LifecycleException extends ZlinkException {
    private static final long serialVersionUID = 1L;

    /** An exception with its message and kind. */
    public LifecycleException(String message, String kind, String refusal) {
        super(message, kind, refusal);
    }
}
