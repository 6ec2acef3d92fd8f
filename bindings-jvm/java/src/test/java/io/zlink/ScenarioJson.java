package io.zlink;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reading a scenario file's values (testdata/scenarios/README.md), and the checks every step
 * shares: a missing required field is a failure of the step that needs it, never a default.
 */
final class ScenarioJson {
    private ScenarioJson() {}

    static ScenarioFailure fail(String why) {
        return new ScenarioFailure(why);
    }

    /** The value at {@code key}, or null when it is absent or JSON null. */
    static JsonElement value(JsonObject v, String key) {
        JsonElement e = v.get(key);
        return e == null || e.isJsonNull() ? null : e;
    }

    /** The object at {@code key}, or null when absent. */
    static JsonObject object(JsonObject v, String key) {
        JsonElement e = value(v, key);
        if (e == null) {
            return null;
        }
        if (!e.isJsonObject()) {
            throw fail("'" + key + "' is not an object");
        }
        return e.getAsJsonObject();
    }

    /** The object {@code e}, which a list of expectations holds. */
    static JsonObject object(JsonElement e) {
        if (e == null || !e.isJsonObject()) {
            throw fail("expected an object, got " + e);
        }
        return e.getAsJsonObject();
    }

    /** The array at {@code key}; empty when absent (an absent list expects nothing). */
    static List<JsonElement> array(JsonObject v, String key) {
        JsonElement e = value(v, key);
        if (e == null) {
            return List.of();
        }
        if (!e.isJsonArray()) {
            throw fail("'" + key + "' is not a list");
        }
        JsonArray a = e.getAsJsonArray();
        List<JsonElement> out = new ArrayList<>(a.size());
        a.forEach(out::add);
        return out;
    }

    /** The text at {@code key}, or null when absent or not text. */
    static String text(JsonObject v, String key) {
        JsonElement e = value(v, key);
        return e instanceof JsonPrimitive p && p.isString() ? p.getAsString() : null;
    }

    /** The boolean at {@code key}, or null when absent or not a boolean. */
    static Boolean bool(JsonObject v, String key) {
        JsonElement e = value(v, key);
        return e instanceof JsonPrimitive p && p.isBoolean() ? p.getAsBoolean() : null;
    }

    /** {@code e} as a non-negative integer, or null when it is not one. */
    static Long integer(JsonElement e) {
        if (!(e instanceof JsonPrimitive p) || !p.isNumber()) {
            return null;
        }
        BigDecimal d = p.getAsBigDecimal();
        if (d.signum() < 0) {
            return null;
        }
        try {
            return d.longValueExact();
        } catch (ArithmeticException notAnInteger) {
            return null;
        }
    }

    /** The non-negative integer at {@code key}, or null when absent or not one. */
    static Long integer(JsonObject v, String key) {
        return integer(value(v, key));
    }

    /** The required text at {@code key}. */
    static String strOf(JsonObject v, String key) {
        String s = text(v, key);
        if (s == null) {
            throw fail("missing '" + key + "'");
        }
        return s;
    }

    /** The required non-negative integer at {@code key}. */
    static long intOf(JsonObject v, String key) {
        Long n = integer(v, key);
        if (n == null) {
            throw fail("missing '" + key + "'");
        }
        return n;
    }

    /** The object kind at "kind": "actor" (the default) or "spot". */
    static ObjectKind kindOf(JsonObject v) {
        String k = value(v, "kind") == null ? "actor" : text(v, "kind");
        if ("actor".equals(k)) {
            return ObjectKind.ACTOR;
        }
        if ("spot".equals(k)) {
            return ObjectKind.SPOT;
        }
        throw fail("unknown kind " + value(v, "kind"));
    }

    /** A payload or state: the UTF-8 of the text at {@code key}, empty when absent. */
    static byte[] payloadOf(JsonObject v, String key) {
        String s = text(v, key);
        return s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
    }

    /** A value as the failure messages show it: text quoted, absent as None. */
    static String repr(Object x) {
        if (x == null) {
            return "None";
        }
        return x instanceof String s ? "'" + s + "'" : x.toString();
    }

    /** When {@code want} names text at {@code key}, {@code got} must be that text. */
    static void expectField(JsonObject want, String key, String got) {
        String w = text(want, key);
        if (w != null && !w.equals(got)) {
            throw fail(key + " is " + repr(got) + ", expected " + repr(w));
        }
    }

    /**
     * A call's result against its {@code expect}: the tag, an Unavailable reason, and the node
     * a route names ("node" for resolve, "to" for a submitted frame).
     */
    static void expectTag(JsonObject want, String tag, Long node, String reason) {
        expectField(want, "tag", tag);
        expectField(want, "reason", reason);
        for (String key : List.of("node", "to")) {
            Long w = integer(want, key);
            if (w != null && !w.equals(node)) {
                throw fail(key + " is " + repr(node) + ", expected " + w);
            }
        }
    }

    /** The config keys a scenario may set (README); any other is a mistake in the file. */
    static final Set<String> CONFIG_KEYS = Set.of("route_cache_max_age_ms", "message_follow_duration_ms",
            "max_follow_hops", "session_relocation_seal_timeout_ms", "session_bind_timeout_ms",
            "owner_lease_duration_ms", "store_timeout_ms", "store_attempts", "max_object_id_bytes",
            "max_message_bytes", "relocation_timeout_ms", "max_relocation_state_bytes");

    /**
     * The RoutingConfig a scenario's {@code config} describes: the defaults with each given key
     * set (durations are milliseconds on both sides). Throws the {@link ZlinkConfigException}
     * of {@link RoutingConfig.Builder#build()} for a config that breaks a rule.
     */
    static RoutingConfig config(JsonObject v) {
        RoutingConfig.Builder b = RoutingConfig.builder();
        if (v == null) {
            return b.build();
        }
        Set<String> unknown = new TreeSet<>(v.keySet());
        unknown.removeAll(CONFIG_KEYS);
        if (!unknown.isEmpty()) {
            throw fail("unknown config keys " + unknown);
        }
        for (String key : v.keySet()) {
            Long n = integer(v, key);
            if (n == null) {
                throw fail("config " + key + " is " + v.get(key) + ", not a non-negative integer");
            }
            set(b, key, n);
        }
        return b.build();
    }

    /** One scenario config key on the builder: its camelCase name without "_ms". */
    private static void set(RoutingConfig.Builder b, String key, long n) {
        switch (key) {
            case "route_cache_max_age_ms" -> b.routeCacheMaxAge(n);
            case "message_follow_duration_ms" -> b.messageFollowDuration(n);
            case "max_follow_hops" -> b.maxFollowHops(n);
            case "session_relocation_seal_timeout_ms" -> b.sessionRelocationSealTimeout(n);
            case "session_bind_timeout_ms" -> b.sessionBindTimeout(n);
            case "owner_lease_duration_ms" -> b.ownerLeaseDuration(n);
            case "store_timeout_ms" -> b.storeTimeout(n);
            case "store_attempts" -> b.storeAttempts(n);
            case "max_object_id_bytes" -> b.maxObjectIdBytes(n);
            case "max_message_bytes" -> b.maxMessageBytes(n);
            case "relocation_timeout_ms" -> b.relocationTimeout(n);
            case "max_relocation_state_bytes" -> b.maxRelocationStateBytes(n);
            default -> throw fail("unknown config key '" + key + "'");
        }
    }

    /**
     * The README's name of a refused call: the exception's {@code kind()}, except that an
     * authority write the store refused (AlreadyExists, WrongState, ...) is {@code Write}, as in
     * the Rust and Python runners. An ownership mistake keeps its own name.
     */
    static String errorName(ZlinkError e) {
        if (e instanceof LifecycleException && !e.kind().equals("NotOwned")
                && !e.kind().equals("NotACommittedMove")) {
            return "Write";
        }
        return e.kind();
    }
}
