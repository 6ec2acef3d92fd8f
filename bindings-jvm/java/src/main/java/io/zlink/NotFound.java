package io.zlink;

/** The object does not exist; nothing was sent. Terminal. */
public record NotFound() implements SendResult {
    static final NotFound INSTANCE = new NotFound();
}
