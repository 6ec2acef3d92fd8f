package io.zlink;

/** A frame on a manual peer connection failed the admission fence. */
public record PeerRefused() implements Inbound {
    static final PeerRefused INSTANCE = new PeerRefused();
}
