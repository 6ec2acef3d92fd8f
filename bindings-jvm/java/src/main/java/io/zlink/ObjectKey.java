package io.zlink;

import java.util.Objects;

/**
 * A global ID interned once for fast lookups: {@link ZlinkRuntime#lookupCached(ObjectKey)}, {@link
 * ZlinkRuntime#resolve(ObjectKey)} and {@link ZlinkRuntime#lookupCachedMany} cross JNI with one
 * {@code long} per key instead of the ID's bytes. Immutable and thread-safe; its native copy is
 * freed when the key is collected. Make one per ID a host looks up often.
 */
public final class ObjectKey {
    private final ObjectKind kind;
    private final String id;
    final byte[] utf8;
    final Handle handle;

    private ObjectKey(ObjectKind kind, String id) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.id = Objects.requireNonNull(id, "id");
        this.utf8 = Utf8.of(id, "id");
        this.handle = new Handle(this, Native.keyNew(kind.code(), utf8), Native::keyFree);
    }

    /** The key of {@code id} (checked: 1..=1024 UTF-8 bytes, a {@link ZlinkInputException} otherwise). */
    public static ObjectKey of(ObjectKind kind, String id) {
        return new ObjectKey(kind, id);
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
