package io.zlink;

/** A command 50 notification to send to the original sender; report it with {@code token}. */
public record Notice(Outbound outbound, NoticeToken token) {}
