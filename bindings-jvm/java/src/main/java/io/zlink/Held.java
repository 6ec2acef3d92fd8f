package io.zlink;

/**
 * The operation is held for a relocation of its object: nothing to do now; it is delivered once,
 * on the side that ends up owning the object (in a {@link Relocation}'s {@code deliver}), or
 * refused to its sender.
 */
public record Held() implements Inbound {
    static final Held INSTANCE = new Held();
}
