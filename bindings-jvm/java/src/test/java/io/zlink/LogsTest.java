package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class LogsTest {
    @Test
    void targetsBecomeZlinkLoggers() {
        assertEquals("zlink.follow.dedup", ZlinkLogs.loggerName("zlink_core::follow::dedup"));
        assertEquals("zlink", ZlinkLogs.loggerName("zlink_core"));
        assertEquals("zlink.log", ZlinkLogs.loggerName("zlink::log"));
    }

    @Test
    void coreRecordsReachSystemLogger() throws Exception {
        // System.Logger is backed by java.util.logging here.
        Logger root = Logger.getLogger("zlink");
        CountDownLatch seen = new CountDownLatch(1);
        AtomicReference<LogRecord> first = new AtomicReference<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLoggerName().startsWith("zlink.")) {
                    first.compareAndSet(null, r);
                    seen.countDown();
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        root.addHandler(handler);
        root.setLevel(java.util.logging.Level.ALL);
        try {
            ZlinkLogs.forward(System.Logger.Level.ALL);
            try (var store = new MemoryStore();
                    var owner = ZlinkRuntime.builder(new NodeIdentity("main", 1)).store(store).build();
                    var sender = ZlinkRuntime.builder(new NodeIdentity("main", 2)).store(store).build()) {
                owner.activate(ObjectKind.ACTOR, "a");
                sender.resolve(ObjectKind.ACTOR, "a");
                sender.onFrame(1, new byte[] {1, 2, 3});
            }
            assertTrue(seen.await(10, TimeUnit.SECONDS), "a core record was logged");
            assertTrue(first.get().getLoggerName().startsWith("zlink."), first.get().getLoggerName());
        } finally {
            ZlinkLogs.forward(System.Logger.Level.OFF);
            root.removeHandler(handler);
        }
    }
}
