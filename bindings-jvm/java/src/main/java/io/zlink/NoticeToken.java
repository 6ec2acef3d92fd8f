package io.zlink;

import java.util.Arrays;

/** Identifies a command 50 notification: give it to {@link ZlinkRuntime#noticeSettled}. */
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
