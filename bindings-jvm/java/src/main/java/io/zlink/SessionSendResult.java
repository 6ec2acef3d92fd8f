package io.zlink;

/** What became of a session relay: {@link SessionSent}, {@link SessionHeld} or {@link Unavailable}. */
public sealed interface SessionSendResult permits SessionSent, SessionHeld, Unavailable {}
