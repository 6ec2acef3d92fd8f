package io.zlink;

/**
 * What to do with one inbound frame or one due deadline ({@link ZlinkRuntime#onFrame}, {@link
 * ZlinkRuntime#onTimeout}): deliver, relay, reject, end, complete, carry frames, or one of the
 * session and relocation events. Closed: match every case.
 */
public sealed interface Inbound permits Deliver, Relay, Reject, Ended, Completed, Late, RouteRefreshed,
        Dropped, Send, SessionDeliver, PeerRefused, Held, ForeignSender, Relocation, Bound, BindRefused,
        Pushed, RelayRefused, Sealed, SessionClosed, Ignored, OwnershipLost {}
