package io.zlink;

/** A connection replacement to perform now: the handshake uses all four values of {@code descriptor}. */
public record PeerReplacement(PeerDescriptor descriptor) {}
