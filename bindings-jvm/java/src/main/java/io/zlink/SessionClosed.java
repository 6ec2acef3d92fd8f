package io.zlink;

/**
 * No command 44 came within the seal timeout: the Session is closed and its binding, held and
 * seal state are gone. Its disconnect notifications follow as a {@link Send}.
 */
public record SessionClosed(SessionRef session) implements Inbound {}
