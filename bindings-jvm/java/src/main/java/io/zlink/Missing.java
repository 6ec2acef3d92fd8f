package io.zlink;

/** No authority record exists (release completed): only the creation coordinator acts on it. */
public record Missing() implements Resolution {
    static final Missing INSTANCE = new Missing();
}
