package io.zlink;

import java.util.Objects;

/**
 * A global ID interned once for fast lookups: {@link ZlinkRuntime#lookupCached(ObjectKey)}, {@link
 * ZlinkRuntime#resolve(ObjectKey)} and {@link ZlinkRuntime#lookupCachedMany} cross JNI with one
 * {@code long} per key instead of the ID's bytes. Immutable and thread-safe; its native copy is
 * freed when the key is collected. Make one per ID a host looks up often.
 *
 * <p>The ID is checked when the key is made, by the library, as a runtime checks an ID: empty is
 * a {@link ZlinkInputException} of kind {@code EmptyObjectId}, over the cap one of kind {@code
 * ObjectIdTooLong}, not valid Unicode one of kind {@code InvalidUtf8}, with the runtime's
 * messages. The cap is the default config's (1,024 bytes); for a runtime configured with another
 * {@link RoutingConfig#maxObjectIdBytes()}, make keys with {@link #of(ObjectKind, String,
 * RoutingConfig)}. A runtime whose cap is smaller than the key's ID refuses the key at the lookup.
 */
public final class ObjectKey {
    private final ObjectKind kind;
    private final String id;
    final byte[] utf8;
    final Handle handle;

    /** The key of {@code id}, checked by the library against {@code cap} (-1: the default config's). */
    private ObjectKey(ObjectKind kind, String id, long cap) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.id = Objects.requireNonNull(id, "id");
        this.utf8 = Utf8.of(id, "id");
        this.handle = new Handle(this, Native.keyNew(kind.code(), utf8, cap), Native::keyFree);
    }

    /**
     * The key of {@code id}, checked against the default cap: 1..=1,024 UTF-8 bytes.
     *
     * @throws ZlinkInputException the ID is empty ({@code EmptyObjectId}), over 1,024 bytes
     *     ({@code ObjectIdTooLong}) or not valid Unicode ({@code InvalidUtf8})
     * @throws NullPointerException {@code kind} or {@code id} is null
     */
    public static ObjectKey of(ObjectKind kind, String id) {
        return new ObjectKey(kind, id, -1);
    }

    /**
     * The key of {@code id} for runtimes running {@code config} (e.g. {@code rt.config()}):
     * checked against its {@link RoutingConfig#maxObjectIdBytes()}.
     *
     * @throws ZlinkInputException the ID is empty ({@code EmptyObjectId}), over the config's cap
     *     ({@code ObjectIdTooLong}) or not valid Unicode ({@code InvalidUtf8})
     * @throws NullPointerException an argument is null
     */
    public static ObjectKey of(ObjectKind kind, String id, RoutingConfig config) {
        return new ObjectKey(kind, id, Objects.requireNonNull(config, "config").maxObjectIdBytes());
    }

    /** The kind. */
    public ObjectKind kind() {
        return kind;
    }

    /** The global ID. */
    public String id() {
        return id;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ObjectKey k && kind == k.kind && id.equals(k.id);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + id.hashCode();
    }

    @Override
    public String toString() {
        return "ObjectKey[" + kind.wireName() + ", " + id + "]";
    }
}
