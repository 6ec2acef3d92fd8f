package io.zlink;

/**
 * The operation is held for a relocation of its object (or, after a store recovery event, until its
 * record is re-read): nothing to do now; it is delivered once, on the side that ends up owning the
 * object (in a {@link Relocation}'s {@code deliver}, or from {@code onTimeout}), or refused to its
 * sender.
 */
public record Held() implements Inbound {
    static final Held INSTANCE = new Held();
}
