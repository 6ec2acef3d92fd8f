package io.zlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * No near entry is ever served after the core would refuse it (issue 31): for at least 10 s
 * ({@code -Dzlink.near.stress.seconds}), in two worlds at once (a manual clock; the system clock,
 * with a route cache smaller than the keys, so the core evicts too), a writer moves routes
 * (renewals and moves to another owner: the store's version of the key goes up), makes the
 * sender's core drop the old ones (rejections carried back through {@code onFrame}, store
 * recoveries, expiries: advancing the manual clock, or time passing; evictions) and
 * refills them, while readers read through the sender's near cache (String IDs, interned keys,
 * batches).
 *
 * <p>The rule for a stale route: {@code retired[i]} is the highest version of key i the sender's
 * core no longer serves. The writer raises it only after the change, once the core's own answer
 * (the checked path, not the near cache) is gone or newer, and since the store holds a newer
 * version and only the writer reads the store for the sender, the core can never serve an older
 * one again. A reader reads {@code retired[i]} before its lookup; a route it is served whose
 * version is at most that is stale. A version is (object generation, store version): a move
 * starts a new incarnation, whose store version starts again.
 */
class NearCacheStressTest {
    private static final ObjectKind A = ObjectKind.ACTOR;
    private static final int KEYS = 256;
    private static final int READERS = 2;

    /** A route's version: object generation, then store version. */
    static long version(ReadyRoute r) {
        return (r.fence().objectGeneration() << 32) | r.fence().storeVersion();
    }

    static long version(OwnedObject o) {
        return (o.objectGeneration() << 32) | o.storeVersion();
    }

    /** What one reader saw. */
    record Reads(long served, long stale) {}

    /** One world: two owners, a sender whose near cache is read, a writer, readers. */
    static final class World implements AutoCloseable {
        final String name;
        final ManualClock clock;
        final MemoryStore store;
        final ZlinkRuntime[] owners = new ZlinkRuntime[2];
        final ZlinkRuntime sender;
        final long maxAgeMs;
        final String[] ids = new String[KEYS];
        final ObjectKey[] keys = new ObjectKey[KEYS];
        final AtomicLongArray retired = new AtomicLongArray(KEYS);
        final AtomicBoolean stop = new AtomicBoolean();
        // The writer's own.
        final int[] ownerOf = new int[KEYS];
        final long[] current = new long[KEYS];
        final long[] previous = new long[KEYS];
        final boolean[] pending = new boolean[KEYS];
        final List<Integer> waiting = new ArrayList<>();
        long changes;
        long retirements;
        long rejections;

        World(String name, boolean manual, long maxAgeMs, long capacity) {
            this.name = name;
            this.maxAgeMs = maxAgeMs;
            this.clock = manual ? new ManualClock() : null;
            this.store = manual ? new MemoryStore(clock) : new MemoryStore();
            RoutingConfig config = RoutingConfig.builder().routeCacheMaxAge(maxAgeMs).ownerLeaseDuration(1_000_000_000L)
                    .routeCacheCapacity(capacity).build();
            owners[0] = build(1, config);
            owners[1] = build(3, config);
            sender = build(2, config);
            for (int i = 0; i < KEYS; i++) {
                ids[i] = "stress-" + name + "-" + i;
                keys[i] = ObjectKey.of(A, ids[i]);
                current[i] = version(owners[0].activate(A, ids[i]));
                sender.resolve(A, ids[i]);
            }
        }

        private ZlinkRuntime build(long rid, RoutingConfig config) {
            var b = ZlinkRuntime.builder(new NodeIdentity("stress", rid)).store(store).config(config);
            return (clock == null ? b : b.clock(clock)).build();
        }

        /** The core's own answer, off the near cache. */
        Optional<ReadyRoute> core(int i) {
            return NearCacheTest.core(sender, ids[i]);
        }

        /** The writer: changes, invalidations and refills until told to stop. */
        void write() {
            var rnd = new SplittableRandom(name.hashCode());
            while (!stop.get()) {
                int i = rnd.nextInt(KEYS);
                int action = rnd.nextInt(100);
                if (action < 40) {
                    change(i, false);
                } else if (action < 70) {
                    change(i, true);
                    reject(i);
                } else if (action < 71) {
                    sender.onStoreRecovery();
                    refillAll();
                } else if (action < 72 && clock != null) {
                    // Every route the sender holds expires.
                    clock.advance(maxAgeMs + 1);
                    refillAll();
                } else {
                    // Refills, as a host resolving before it sends.
                    for (int k = 0; k < 8; k++) {
                        sender.resolve(A, ids[rnd.nextInt(KEYS)]);
                    }
                }
                retire();
            }
        }

        private void refillAll() {
            for (String id : ids) {
                sender.resolve(A, id);
            }
        }

        /** Raises the store's version of key i: a renewal, or a move to the other owner. */
        private void change(int i, boolean move) {
            long before = current[i];
            if (move) {
                ZlinkRuntime from = owners[ownerOf[i]];
                from.beginRelease(A, ids[i]);
                from.completeRelease(A, ids[i]);
                ownerOf[i] ^= 1;
                current[i] = version(owners[ownerOf[i]].activate(A, ids[i]));
            } else {
                current[i] = version(owners[ownerOf[i]].renewLease(A, ids[i]));
            }
            assertTrue(current[i] > before, "versions rise");
            previous[i] = before;
            changes++;
            if (!pending[i]) {
                pending[i] = true;
                waiting.add(i);
            }
        }

        /** A message on the sender's cached route, rejected by the old owner, the rejection carried back. */
        private void reject(int i) {
            SendResult sent = sender.send(A, ids[i], new byte[] {1});
            if (!(sent instanceof Submitted s)) {
                return;
            }
            long to = s.outbound().to().rid();
            ZlinkRuntime node = owners[to == 1 ? 0 : 1];
            Inbound answer = node.onFrame(2, s.outbound().bytes());
            if (answer instanceof Reject r) {
                sender.onFrame(to, r.outbound().bytes());
                rejections++;
            }
        }

        /** Retires the old versions the sender's core no longer serves, then refills those keys. */
        private void retire() {
            for (int w = waiting.size() - 1; w >= 0; w--) {
                int i = waiting.get(w);
                Optional<ReadyRoute> served = core(i);
                if (served.isEmpty() || version(served.get()) >= current[i]) {
                    // After the change, checked: the core serves nothing older than current[i],
                    // and nothing can bring an older one back.
                    retired.set(i, Math.max(retired.get(i), previous[i]));
                    retirements++;
                    pending[i] = false;
                    waiting.remove(w);
                    sender.resolve(A, ids[i]);
                }
            }
        }

        /** A reader: lookups through the near cache, counting stale routes served. */
        Reads read(int seed) {
            var rnd = new SplittableRandom(seed);
            long served = 0;
            long stale = 0;
            ObjectKey[] batch = new ObjectKey[4];
            long[] gone = new long[batch.length];
            int[] at = new int[batch.length];
            while (!stop.get()) {
                int form = rnd.nextInt(10);
                if (form < 8) {
                    int i = rnd.nextInt(KEYS);
                    long g = retired.get(i);
                    Optional<ReadyRoute> r = form < 5 ? sender.lookupCached(A, ids[i]) : sender.lookupCached(keys[i]);
                    if (r.isPresent()) {
                        served++;
                        stale += version(r.get()) <= g ? 1 : 0;
                    }
                } else {
                    for (int b = 0; b < batch.length; b++) {
                        at[b] = rnd.nextInt(KEYS);
                        gone[b] = retired.get(at[b]);
                        batch[b] = keys[at[b]];
                    }
                    ReadyRoute[] rs = sender.lookupCachedMany(batch);
                    for (int b = 0; b < batch.length; b++) {
                        if (rs[b] != null) {
                            served++;
                            stale += version(rs[b]) <= gone[b] ? 1 : 0;
                        }
                    }
                }
            }
            return new Reads(served, stale);
        }

        @Override
        public void close() {
            sender.close();
            owners[0].close();
            owners[1].close();
            store.close();
            if (clock != null) {
                clock.close();
            }
        }
    }

    @Test
    void noStaleRouteIsServedWhileWritersChangeInvalidateAndExpire() throws Exception {
        long seconds = Long.getLong("zlink.near.stress.seconds", 10);
        try (var manual = new World("manual", true, 100, 1_000_000);
                var system = new World("system", false, 30, KEYS / 2)) {
            List<World> worlds = List.of(manual, system);
            long[] nearBefore = {manual.sender.nearHits(), system.sender.nearHits()};
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            Reads[][] reads = new Reads[2][READERS];
            for (int w = 0; w < 2; w++) {
                World world = worlds.get(w);
                threads.add(new Thread(() -> {
                    try {
                        world.write();
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }, world.name + "-writer"));
                for (int r = 0; r < READERS; r++) {
                    int w0 = w;
                    int r0 = r;
                    threads.add(new Thread(() -> {
                        try {
                            reads[w0][r0] = world.read(31 * w0 + r0 + 1);
                        } catch (Throwable t) {
                            failures.add(t);
                        }
                    }, world.name + "-reader-" + r));
                }
            }
            long start = System.nanoTime();
            threads.forEach(Thread::start);
            Thread.sleep(seconds * 1000);
            worlds.forEach(w -> w.stop.set(true));
            for (Thread t : threads) {
                t.join();
            }
            double took = (System.nanoTime() - start) / 1e9;
            assertEquals(List.of(), failures);
            long staleAll = 0;
            for (int w = 0; w < 2; w++) {
                World world = worlds.get(w);
                long served = 0;
                long stale = 0;
                for (Reads r : reads[w]) {
                    served += r.served();
                    stale += r.stale();
                }
                long near = world.sender.nearHits() - nearBefore[w];
                System.out.printf(java.util.Locale.ROOT,
                        "near-cache stress, %s clock, %.1f s: %d routes served to readers, %d near hits, %d stale; "
                                + "writer: %d changes (%d rejections carried back), %d versions retired%n",
                        world.name, took, served, near, stale, world.changes, world.rejections, world.retirements);
                assertTrue(near > 10_000, world.name + ": too few near hits to mean anything: " + near);
                assertTrue(world.retirements > 100, world.name + ": too few retirements: " + world.retirements);
                staleAll += stale;
            }
            assertEquals(0, staleAll, "stale routes served");
        }
    }
}
