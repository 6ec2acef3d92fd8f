package io.zlink;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Objects;

/**
 * The core's log records for {@link System.Logger}: {@link #forward(Level)} makes the core queue
 * its records at that level and above (never blocking the core: a full queue drops records and
 * counts them), and a daemon thread ({@code zlink-logs}) takes them and logs each on the logger
 * {@code zlink.<module>} (e.g. {@code zlink.runtime}, {@code zlink.follow}). The logging call
 * runs on that thread, holding no lock of the core, so a handler may call into a runtime.
 */
public final class ZlinkLogs {
    private static final Object LOCK = new Object();
    private static Thread pump;

    private ZlinkLogs() {}

    /**
     * Forwards records at {@code level} and above; {@link Level#OFF} stops forwarding. {@link
     * Level#ALL} forwards everything. A {@link ZlinkException} ({@code LogSubscriberTaken}) if
     * other Rust code in the process already owns the global log subscriber.
     */
    public static void forward(Level level) {
        Objects.requireNonNull(level, "level");
        Native.logLevel(code(level));
        synchronized (LOCK) {
            if (level != Level.OFF && (pump == null || !pump.isAlive())) {
                pump = new Thread(ZlinkLogs::pump, "zlink-logs");
                pump.setDaemon(true);
                pump.start();
            }
        }
    }

    /** The native level code of a {@link Level}: 0 off, 1 error ..= 5 trace. */
    private static int code(Level level) {
        return switch (level) {
            case OFF -> 0;
            case ERROR -> 1;
            case WARNING -> 2;
            case INFO -> 3;
            case DEBUG -> 4;
            case TRACE, ALL -> 5;
        };
    }

    private static Level level(int code) {
        return switch (code) {
            case 1 -> Level.ERROR;
            case 2 -> Level.WARNING;
            case 3 -> Level.INFO;
            case 4 -> Level.DEBUG;
            default -> Level.TRACE;
        };
    }

    /** The logger of a Rust target: {@code zlink_core::follow::dedup} is {@code zlink.follow.dedup}. */
    static String loggerName(String target) {
        String module = target.replaceFirst("^zlink_core(::)?", "").replaceFirst("^zlink(::)?", "");
        return module.isEmpty() ? "zlink" : "zlink." + module.replace("::", ".");
    }

    private static void pump() {
        while (true) {
            Decoder d = Decoder.of(Native.logTake(200));
            int n = d.u32();
            for (int i = 0; i < n; i++) {
                Level level = level(d.u8());
                String target = d.str();
                String message = d.str();
                try {
                    System.getLogger(loggerName(target)).log(level, message);
                } catch (RuntimeException e) {
                    // A broken handler must not end the pump.
                }
            }
            long dropped = d.u64();
            if (dropped > 0) {
                Logger logger = System.getLogger("zlink");
                logger.log(Level.WARNING, dropped + " core log records dropped");
            }
        }
    }
}
