package io.zlink;

/**
 * What a relocation step reports. {@code reason}s: Requested, Timeout, Refused, RestoreFailed,
 * CommitFailed; an ignored frame's {@code refusal}: NotRelocating, WrongTarget, ...
 */
public sealed interface RelocationEvent {
    /** Which relocation. */
    RelocationIdentity identity();

    /**
     * Target: a Restore arrived. Build the object from {@code state}, then call {@link
     * ZlinkRuntime#relocationRestored} (or abort if it cannot be built). Run nothing for it yet.
     */
    record Restore(RelocationIdentity identity, long sourceRid, long sourceGeneration, byte[] state)
            implements RelocationEvent {
        @Override
        public boolean equals(Object o) {
            return o instanceof Restore r && identity.equals(r.identity) && sourceRid == r.sourceRid
                    && sourceGeneration == r.sourceGeneration && Bytes.same(state, r.state);
        }

        @Override
        public int hashCode() {
            return identity.hashCode() * 31 + Bytes.hash(state);
        }

        @Override
        public String toString() {
            return "Restore[identity=" + identity + ", sourceRid=" + sourceRid + ", sourceGeneration="
                    + sourceGeneration + ", state=" + Bytes.describe(state) + "]";
        }
    }

    /** Source: the target is relay-ready; held work relayed; the object no longer runs here. */
    record Cutover(RelocationIdentity identity, long relayed) implements RelocationEvent {}

    /** Target: the owner CAS succeeded; the object runs here from now on. */
    record Committed(RelocationIdentity identity, long sourceRid, long sourceGeneration) implements RelocationEvent {}

    /** Source: the target committed; drop the local instance. */
    record HandedOff(RelocationIdentity identity, long targetRid, long targetGeneration) implements RelocationEvent {}

    /** Source: the move is being given up; the object stays sealed until the target confirms. */
    record Aborting(RelocationIdentity identity, String reason) implements RelocationEvent {}

    /** Either side, before relay-ready: the move is abandoned. */
    record Aborted(RelocationIdentity identity, String reason) implements RelocationEvent {}

    /** After relay-ready the move could not complete: the object runs on neither side. */
    record Failed(RelocationIdentity identity, String reason) implements RelocationEvent {}

    /** The store could not answer; retried on a later {@link ZlinkRuntime#onTimeout}. */
    record CommitRetry(RelocationIdentity identity) implements RelocationEvent {}

    /**
     * Target: the cutover arrived; the next {@link ZlinkRuntime#onTimeout} starts the owner CAS on
     * the store's I/O (never waiting for it); that call or a later one ({@link
     * ZlinkRuntime#nextDeadline} says when) returns {@link Committed}.
     */
    record CommitDue(RelocationIdentity identity) implements RelocationEvent {}

    /** A relocation frame that changes nothing: refused and counted. */
    record Ignored(RelocationIdentity identity, String refusal) implements RelocationEvent {}
}
