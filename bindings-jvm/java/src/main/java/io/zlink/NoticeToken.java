package io.zlink;

import java.util.Arrays;

/**
 * Identifies a command 50 notification ({@link Notice#token()} of a {@link Relay}): give it to
 * {@link ZlinkRuntime#noticeSettled(NoticeToken, boolean)} once, after carrying the notice, sent
 * or not. A notice never settled blocks every later one for the same sender and route.
 */
public final class NoticeToken {
    final byte[] blob;

    NoticeToken(byte[] blob) {
        this.blob = blob;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NoticeToken t && Arrays.equals(blob, t.blob);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(blob);
    }

    @Override
    public String toString() {
        return "NoticeToken(...)";
    }
}
