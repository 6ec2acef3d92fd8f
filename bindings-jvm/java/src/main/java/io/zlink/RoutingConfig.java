package io.zlink;

import java.util.Arrays;
import java.util.List;

/**
 * The routing settings, immutable and valid: durations in milliseconds, 0 disables the cache or
 * Message Follow. Built from the defaults with {@link #builder()}; {@link Builder#build()} checks
 * every rule (spec §2.5) and throws a {@link ZlinkConfigException} (an {@link
 * IllegalArgumentException}) naming the one broken, e.g. that the route cache must expire at
 * least 5 s before Message Follow ends.
 */
public final class RoutingConfig {
    /** The field names in the native order (checked against the library by the tests). */
    static final List<String> FIELDS = List.of("routeCacheMaxAge", "messageFollowDuration",
            "maxFollowHops", "sessionRelocationSealTimeout", "sessionBindTimeout",
            "routeCacheCapacity", "ownerLeaseDuration", "storeTimeout", "storeAttempts",
            "maxObjectIdBytes", "maxMessageBytes", "relocationTimeout",
            "maxRelocationStateBytes");

    private final long[] values;

    RoutingConfig(long[] values) {
        this.values = values;
    }

    /** The defaults (route cache 15 s, Message Follow 30 s, 8 hops, ...). */
    public static RoutingConfig defaults() {
        return new RoutingConfig(Native.configDefault());
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder(Native.configDefault());
    }

    /** A builder starting from this config. */
    public Builder toBuilder() {
        return new Builder(values.clone());
    }

    long[] values() {
        return values.clone();
    }

    /** How long a cached route may be used, ms (0: no cache). */
    public long routeCacheMaxAge() { return values[0]; }

    /** How long a source keeps a Message Follow route after a move, ms (0: none). */
    public long messageFollowDuration() { return values[1]; }

    /** How many Message Follow hops an operation may take (1..8). */
    public long maxFollowHops() { return values[2]; }

    /** How long a relocation waits for its Sessions to seal, ms. */
    public long sessionRelocationSealTimeout() { return values[3]; }

    /** How long a bind waits for its terminal reply, ms. */
    public long sessionBindTimeout() { return values[4]; }

    /** How many routes the cache holds. */
    public long routeCacheCapacity() { return values[5]; }

    /** How long an owner lease lasts, ms. */
    public long ownerLeaseDuration() { return values[6]; }

    /** How long one store call may take, ms. */
    public long storeTimeout() { return values[7]; }

    /** How many times a store call is tried. */
    public long storeAttempts() { return values[8]; }

    /** The longest object ID, bytes. */
    public long maxObjectIdBytes() { return values[9]; }

    /** The largest payload, bytes. */
    public long maxMessageBytes() { return values[10]; }

    /** How long a relocation step may wait for the other side, ms. */
    public long relocationTimeout() { return values[11]; }

    /** The largest relocation state, bytes. */
    public long maxRelocationStateBytes() { return values[12]; }

    @Override
    public boolean equals(Object o) {
        return o instanceof RoutingConfig c && Arrays.equals(values, c.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("RoutingConfig(");
        for (int i = 0; i < values.length; i++) {
            b.append(i == 0 ? "" : ", ").append(FIELDS.get(i)).append('=').append(values[i]);
        }
        return b.append(')').toString();
    }

    /** Sets fields, then checks them all at once in {@link #build()}. */
    public static final class Builder {
        private final long[] values;

        private Builder(long[] values) {
            this.values = values;
        }

        private Builder set(int field, long value) {
            values[field] = value;
            return this;
        }

        /** See {@link RoutingConfig#routeCacheMaxAge()}. */
        public Builder routeCacheMaxAge(long ms) { return set(0, ms); }

        /** See {@link RoutingConfig#messageFollowDuration()}. */
        public Builder messageFollowDuration(long ms) { return set(1, ms); }

        /** See {@link RoutingConfig#maxFollowHops()}. */
        public Builder maxFollowHops(long hops) { return set(2, hops); }

        /** See {@link RoutingConfig#sessionRelocationSealTimeout()}. */
        public Builder sessionRelocationSealTimeout(long ms) { return set(3, ms); }

        /** See {@link RoutingConfig#sessionBindTimeout()}. */
        public Builder sessionBindTimeout(long ms) { return set(4, ms); }

        /** See {@link RoutingConfig#routeCacheCapacity()}. */
        public Builder routeCacheCapacity(long entries) { return set(5, entries); }

        /** See {@link RoutingConfig#ownerLeaseDuration()}. */
        public Builder ownerLeaseDuration(long ms) { return set(6, ms); }

        /** See {@link RoutingConfig#storeTimeout()}. */
        public Builder storeTimeout(long ms) { return set(7, ms); }

        /** See {@link RoutingConfig#storeAttempts()}. */
        public Builder storeAttempts(long attempts) { return set(8, attempts); }

        /** See {@link RoutingConfig#maxObjectIdBytes()}. */
        public Builder maxObjectIdBytes(long bytes) { return set(9, bytes); }

        /** See {@link RoutingConfig#maxMessageBytes()}. */
        public Builder maxMessageBytes(long bytes) { return set(10, bytes); }

        /** See {@link RoutingConfig#relocationTimeout()}. */
        public Builder relocationTimeout(long ms) { return set(11, ms); }

        /** See {@link RoutingConfig#maxRelocationStateBytes()}. */
        public Builder maxRelocationStateBytes(long bytes) { return set(12, bytes); }

        /** The config, checked: a {@link ZlinkConfigException} names the rule it breaks. */
        public RoutingConfig build() {
            return new RoutingConfig(Native.configCheck(values.clone()));
        }
    }
}
