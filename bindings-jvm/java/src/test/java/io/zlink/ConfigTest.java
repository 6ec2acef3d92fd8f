package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigTest {
    private static String camel(String snake) {
        StringBuilder b = new StringBuilder();
        boolean up = false;
        for (char c : snake.toCharArray()) {
            if (c == '_') {
                up = true;
            } else {
                b.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return b.toString();
    }

    @Test
    void theFieldsAreTheLibrarysInItsOrder() {
        List<String> native_ = Arrays.stream(Native.configFields().split(",")).map(ConfigTest::camel).toList();
        assertEquals(native_, RoutingConfig.FIELDS);
    }

    @Test
    void theDefaultsAreTheCores() {
        RoutingConfig d = RoutingConfig.defaults();
        assertEquals(15_000, d.routeCacheMaxAge());
        assertEquals(30_000, d.messageFollowDuration());
        assertEquals(8, d.maxFollowHops());
        assertEquals(d, RoutingConfig.builder().build());
        assertTrue(d.toString().startsWith("RoutingConfig(routeCacheMaxAge=15000, "));
    }

    @Test
    void aBrokenRuleIsAnIllegalArgumentExceptionNamingIt() {
        var b = RoutingConfig.builder().routeCacheMaxAge(28_000);
        var e = assertThrows(ZlinkConfigException.class, b::build);
        assertInstanceOf(IllegalArgumentException.class, e);
        assertEquals("CacheOutlivesFollow", e.kind());
        assertTrue(e.getMessage().contains("5"), e.getMessage());
        var hops = assertThrows(ZlinkConfigException.class, () -> RoutingConfig.builder().maxFollowHops(9).build());
        assertEquals("FollowHops", hops.kind());
        var negative = assertThrows(ZlinkConfigException.class,
                () -> RoutingConfig.builder().storeTimeout(-1).build());
        assertTrue(negative.getMessage().contains("store_timeout"), negative.getMessage());
    }

    @Test
    void aValidConfigRoundTripsThroughARuntime() {
        RoutingConfig c = RoutingConfig.builder().routeCacheMaxAge(0).ownerLeaseDuration(60_000).build();
        try (var rt = ZlinkRuntime.builder(new NodeIdentity("main", 1)).config(c).build()) {
            assertEquals(c, rt.config());
            RoutingConfig other = c.toBuilder().routeCacheMaxAge(10_000).build();
            rt.updateConfig(other);
            assertEquals(10_000, rt.config().routeCacheMaxAge());
        }
    }
}
