//! Plain atomic counters and the snapshot hosts read (DESIGN §6).
//!
//! Counters bumped on the cache-hit path are striped over cache-line-padded
//! cells. A thread leases a stripe of its own while it lives, so its bumps
//! are a plain load and store (no locked instruction, no shared line);
//! threads beyond the stripes share one cell with atomic adds.

use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Stripes a hot counter has; the first is the shared overflow cell.
const STRIPES: usize = 64;
const SHARED: usize = 0;

#[derive(Debug, Default)]
#[repr(align(128))]
struct Padded(AtomicU64);

/// A counter many threads bump without sharing a cache line.
#[derive(Debug)]
pub(crate) struct StripedCounter {
    stripes: Box<[Padded; STRIPES]>,
}

impl Default for StripedCounter {
    fn default() -> Self {
        StripedCounter {
            stripes: Box::new(std::array::from_fn(|_| Padded::default())),
        }
    }
}

/// Stripe indices no live thread holds.
static FREE_STRIPES: Mutex<Vec<usize>> = Mutex::new(Vec::new());
static NEXT_STRIPE: AtomicU64 = AtomicU64::new(1);

/// A thread's stripe lease, given back when the thread exits so the index
/// can be reused without ever having two owners.
struct StripeLease(Cell<usize>);

impl Drop for StripeLease {
    fn drop(&mut self) {
        let i = self.0.get();
        if i != SHARED && i != usize::MAX {
            FREE_STRIPES
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(i);
        }
    }
}

thread_local! {
    static STRIPE: StripeLease = const { StripeLease(Cell::new(usize::MAX)) };
}

fn lease_stripe() -> usize {
    if let Some(i) = FREE_STRIPES.lock().unwrap_or_else(|p| p.into_inner()).pop() {
        return i;
    }
    let i = NEXT_STRIPE.fetch_add(1, Ordering::Relaxed);
    if i < STRIPES as u64 {
        i as usize
    } else {
        SHARED
    }
}

#[inline]
fn stripe() -> usize {
    // A thread being torn down has no lease any more: use the shared cell.
    STRIPE
        .try_with(|s| {
            let mut i = s.0.get();
            if i == usize::MAX {
                i = lease_stripe();
                s.0.set(i);
            }
            i
        })
        .unwrap_or(SHARED)
}

impl StripedCounter {
    #[inline]
    pub(crate) fn incr(&self) {
        let i = stripe();
        let cell = &self.stripes[i].0;
        if i == SHARED {
            cell.fetch_add(1, Ordering::Relaxed);
        } else {
            // Only this thread writes this stripe while it holds the lease.
            cell.store(cell.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
    }

    pub(crate) fn get(&self) -> u64 {
        self.stripes
            .iter()
            .map(|p| p.0.load(Ordering::Relaxed))
            .sum()
    }
}

/// Cells of a [`HostCounter`], and the words from one cell to the next.
pub const HOST_COUNTER_CELLS: usize = 16;
/// Words (8 bytes) from one [`HostCounter`] cell to the next: one 128-byte
/// line pair each, so host threads on different cells share no line.
pub const HOST_COUNTER_STRIDE: usize = 16;

#[repr(C, align(128))]
struct HostCells([AtomicU64; HOST_COUNTER_CELLS * HOST_COUNTER_STRIDE]);

/// A counter a host bumps in place (a near cache's hits, which never call
/// in): it adds to cell `HOST_COUNTER_STRIDE * (thread % HOST_COUNTER_CELLS)`
/// with an atomic add (threads may share a cell), and the snapshot reads
/// the sum.
pub(crate) struct HostCounter(Box<HostCells>);

impl Default for HostCounter {
    fn default() -> Self {
        HostCounter(Box::new(HostCells(std::array::from_fn(|_| {
            AtomicU64::new(0)
        }))))
    }
}

impl std::fmt::Debug for HostCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("HostCounter").field(&self.get()).finish()
    }
}

impl HostCounter {
    pub(crate) fn get(&self) -> u64 {
        self.0.0.iter().map(|w| w.load(Ordering::Relaxed)).sum()
    }

    /// The words, for the host to add to in place.
    pub(crate) fn words(&self) -> &[AtomicU64] {
        &self.0.0
    }
}

/// A counter bumped on cold paths only.
#[derive(Debug, Default)]
pub(crate) struct Counter(AtomicU64);

impl Counter {
    pub(crate) fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn incr(&self) {
        self.add(1);
    }

    pub(crate) fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Why route cache entries were removed (§2.2 "Conditions for immediate
/// invalidation").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvalidationReason {
    /// A read confirmed a higher StoreVersion (or a record no longer Ready).
    HigherStoreVersion,
    /// The owner rejected the route as stale and the entry still held that fence.
    StaleRoute,
    /// The store recovered from a failure or restarted: every entry.
    StoreRecovery,
    /// The owner lease was invalidated: every entry of that lease.
    OwnerLeaseInvalidated,
    /// A Message Follow relay notification matched the entry.
    RelayNotification,
}

impl InvalidationReason {
    /// Every reason, in snapshot order.
    pub const ALL: [InvalidationReason; 5] = [
        InvalidationReason::HigherStoreVersion,
        InvalidationReason::StaleRoute,
        InvalidationReason::StoreRecovery,
        InvalidationReason::OwnerLeaseInvalidated,
        InvalidationReason::RelayNotification,
    ];

    /// The snake_case name used in logs and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            InvalidationReason::HigherStoreVersion => "higher_store_version",
            InvalidationReason::StaleRoute => "stale_route",
            InvalidationReason::StoreRecovery => "store_recovery",
            InvalidationReason::OwnerLeaseInvalidated => "owner_lease_invalidated",
            InvalidationReason::RelayNotification => "relay_notification",
        }
    }
}

/// The runtime's counters.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) cache_hits: StripedCounter,
    /// Hits a host's near cache served without calling in (counted in
    /// `cache_hits` too).
    pub(crate) near_hits: HostCounter,
    pub(crate) cache_misses: Counter,
    pub(crate) store_reads: Counter,
    pub(crate) store_failures: Counter,
    pub(crate) store_recoveries: Counter,
    pub(crate) store_writes_unreplicated: Counter,
    pub(crate) ownerships_lost: Counter,
    pub(crate) ready_from_store: Counter,
    pub(crate) missing: Counter,
    pub(crate) unavailable: Counter,
    pub(crate) store_failure_results: Counter,
    pub(crate) evictions: Counter,
    pub(crate) follow: FollowCounters,
    pub(crate) requests: RequestCounters,
    pub(crate) sessions: SessionCounters,
    pub(crate) relocation: RelocationCounters,
    invalidations: [Counter; 5],
}

impl Counters {
    pub(crate) fn invalidated(&self, reason: InvalidationReason, entries: u64) {
        self.invalidations[reason as usize].add(entries);
    }

    pub(crate) fn snapshot(&self, cache_entries: usize) -> Stats {
        let hits = self.cache_hits.get() + self.near_hits.get();
        Stats {
            cache_hits: hits,
            cache_misses: self.cache_misses.get(),
            cache_entries: cache_entries as u64,
            cache_evictions: self.evictions.get(),
            store_reads: self.store_reads.get(),
            store_failures: self.store_failures.get(),
            store_recoveries: self.store_recoveries.get(),
            store_writes_unreplicated: self.store_writes_unreplicated.get(),
            ownerships_lost: self.ownerships_lost.get(),
            resolutions: ResolutionCounts {
                ready_route: hits + self.ready_from_store.get(),
                missing: self.missing.get(),
                unavailable: self.unavailable.get(),
                store_failure: self.store_failure_results.get(),
            },
            invalidations: InvalidationReason::ALL
                .map(|r| (r, self.invalidations[r as usize].get())),
            follow: self.follow.snapshot(),
            requests: self.requests.snapshot(),
            sessions: SessionStats {
                relays: self.sessions.relays.get(),
                held: self.sessions.held.get(),
                closed_by_seal_timeout: self.sessions.closed_by_seal_timeout.get(),
                bind_timeouts: self.sessions.bind_timeouts.get(),
            },
            relocation: self.relocation.snapshot(),
            tables: TableStats::default(),
            latencies: crate::latency::LatencyStats::default(),
        }
    }
}

/// Relocation handoff counters (§3.3).
#[derive(Debug, Default)]
pub(crate) struct RelocationCounters {
    pub(crate) begun: Counter,
    pub(crate) restores: Counter,
    pub(crate) committed: Counter,
    pub(crate) handed_off: Counter,
    pub(crate) aborted: Counter,
    pub(crate) failed: Counter,
    pub(crate) held: Counter,
    pub(crate) relayed: Counter,
    pub(crate) refused: Counter,
}

impl RelocationCounters {
    fn snapshot(&self) -> RelocationStats {
        RelocationStats {
            begun: self.begun.get(),
            restores: self.restores.get(),
            committed: self.committed.get(),
            handed_off: self.handed_off.get(),
            aborted: self.aborted.get(),
            failed: self.failed.get(),
            held: self.held.get(),
            relayed: self.relayed.get(),
            control_refused: self.refused.get(),
        }
    }
}

/// Relocations on this runtime, as source and as target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RelocationStats {
    /// Moves begun here (source).
    pub begun: u64,
    /// Restore requests taken (target).
    pub restores: u64,
    /// Owner CASes that succeeded here (target).
    pub committed: u64,
    /// Moves this source handed off to a committed target.
    pub handed_off: u64,
    /// Moves abandoned before relay-ready (either side).
    pub aborted: u64,
    /// Moves that failed after relay-ready: CAS refused, or no commit came.
    pub failed: u64,
    /// Operations held (source ingress hold or target temporary queue).
    pub held: u64,
    /// Operations relayed by a source to its target.
    pub relayed: u64,
    /// Control frames refused: another relocation or incarnation, a
    /// duplicate, out of order, or from the wrong node.
    pub control_refused: u64,
}

/// Session counters.
#[derive(Debug, Default)]
pub(crate) struct SessionCounters {
    pub(crate) relays: Counter,
    pub(crate) held: Counter,
    pub(crate) closed_by_seal_timeout: Counter,
    pub(crate) bind_timeouts: Counter,
}

/// Session relays on this runtime as Session owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SessionStats {
    /// Relays sent on a stored binding route (held ones once released not included).
    pub relays: u64,
    /// Relays held while their Actor was sealed for relocation.
    pub held: u64,
    /// Sessions closed because no command 44 came within the seal timeout.
    pub closed_by_seal_timeout: u64,
    /// Binds refused because no terminal reply came within the bind timeout.
    pub bind_timeouts: u64,
}

/// How many entries each of the runtime's tables holds now. Every table is
/// bounded (DESIGN §5.9): by live work, by a timer that sweeps it, or by a
/// cap with counted evictions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TableStats {
    /// Requests waiting for their terminal result.
    pub pending_requests: u64,
    /// Request deadline entries (ended requests' not yet shed included).
    pub request_deadlines: u64,
    /// Sessions this runtime owns.
    pub sessions: u64,
    /// Binds waiting for their terminal reply.
    pub pending_binds: u64,
    /// Seal and bind deadline entries of the Session owner.
    pub session_deadlines: u64,
    /// Session registrations of Actors this runtime owns.
    pub registrations: u64,
    /// Rebind replies parked until the previous owner's tombstone ACK.
    pub parked_binds: u64,
    /// Parked-reply deadline entries.
    pub parked_deadlines: u64,
    /// Message Follow routes held.
    pub follow_routes: u64,
    /// Follow-route expiry entries.
    pub follow_deadlines: u64,
    /// Relay-notification dedup entries over every follow route.
    pub dedup_entries: u64,
    /// Dedup entries dropped to stay within their bounds.
    pub dedup_evictions: u64,
    /// Store reads in flight (single-flight groups).
    pub store_flights: u64,
    /// Relocations running here as source.
    pub relocation_sources: u64,
    /// Relocations running here as target.
    pub relocation_targets: u64,
    /// Relocation deadline entries (dead ones included).
    pub relocation_deadlines: u64,
}

/// Request/reply counters.
#[derive(Debug, Default)]
pub(crate) struct RequestCounters {
    pub(crate) sent: Counter,
    pub(crate) late: Counter,
    pub(crate) unroutable: Counter,
    pub(crate) undecodable_answered: Counter,
    replies: Counter,
    errors: Counter,
    timeouts: Counter,
    cancelled: Counter,
    shutdown: Counter,
}

impl RequestCounters {
    /// A request ended with a reply.
    pub(crate) fn replied(&self) {
        self.replies.incr();
    }

    /// A request ended with an error reply or a route error.
    pub(crate) fn errored(&self) {
        self.errors.incr();
    }

    /// A request ended by its deadline.
    pub(crate) fn timed_out(&self) {
        self.timeouts.incr();
    }

    /// A request was cancelled.
    pub(crate) fn cancelled(&self) {
        self.cancelled.incr();
    }

    /// A request ended by shutdown.
    pub(crate) fn shut_down(&self) {
        self.shutdown.incr();
    }

    fn snapshot(&self) -> RequestStats {
        RequestStats {
            sent: self.sent.get(),
            replies: self.replies.get(),
            errors: self.errors.get(),
            timeouts: self.timeouts.get(),
            cancelled: self.cancelled.get(),
            shutdown: self.shutdown.get(),
            late_results: self.late.get(),
            unroutable: self.unroutable.get(),
            undecodable_answered: self.undecodable_answered.get(),
        }
    }
}

/// Requests and their terminal results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequestStats {
    /// Requests sent (and registered pending).
    pub sent: u64,
    /// Ended with a reply.
    pub replies: u64,
    /// Ended with an error reply or a route error.
    pub errors: u64,
    /// Ended by their deadline.
    pub timeouts: u64,
    /// Ended by cancellation.
    pub cancelled: u64,
    /// Ended by shutdown.
    pub shutdown: u64,
    /// Results that arrived after a request's terminal one (a late reply,
    /// refusal or cancellation): dropped and counted. A deadline passing
    /// after the end is not an arrival. No request ever completes twice.
    pub late_results: u64,
    /// Requests dropped because their reply route could not be restored.
    pub unroutable: u64,
    /// Undecodable requests answered with a `Decode` error reply on the
    /// reply route they still carried (spec §4.3).
    pub undecodable_answered: u64,
}

/// Message Follow and frame counters.
#[derive(Debug, Default)]
pub(crate) struct FollowCounters {
    pub(crate) delivered: Counter,
    pub(crate) relays: Counter,
    pub(crate) notices_sent: Counter,
    pub(crate) notices_suppressed: Counter,
    pub(crate) notices_failed: Counter,
    pub(crate) rejections_sent: Counter,
    pub(crate) frames_dropped: Counter,
    pub(crate) foreign_frames: Counter,
}

impl FollowCounters {
    fn snapshot(&self) -> FollowStats {
        FollowStats {
            delivered: self.delivered.get(),
            relays: self.relays.get(),
            notifications_sent: self.notices_sent.get(),
            notifications_suppressed: self.notices_suppressed.get(),
            notification_failures: self.notices_failed.get(),
            rejections_sent: self.rejections_sent.get(),
            frames_dropped: self.frames_dropped.get(),
            frames_foreign_sender: self.foreign_frames.get(),
        }
    }
}

/// What this runtime did with frames (Message Follow among them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FollowStats {
    /// Operations admitted to a local application queue.
    pub delivered: u64,
    /// Operations relayed on a Message Follow route.
    pub relays: u64,
    /// Command 50 notifications handed to the host to send.
    pub notifications_sent: u64,
    /// Notifications the dedup registry suppressed.
    pub notifications_suppressed: u64,
    /// Notification sends the host reported failed.
    pub notification_failures: u64,
    /// Rejections sent back to an operation's origin.
    pub rejections_sent: u64,
    /// Frames dropped as undecodable.
    pub frames_dropped: u64,
    /// Frames refused because their sender was not their connection's node.
    pub frames_foreign_sender: u64,
}

/// How many resolutions ended with each tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ResolutionCounts {
    /// `ReadyRoute` (cache hits included).
    pub ready_route: u64,
    /// `Missing`.
    pub missing: u64,
    /// `Unavailable`.
    pub unavailable: u64,
    /// `StoreFailure`.
    pub store_failure: u64,
}

/// One consistent-enough reading of every counter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Resolutions answered by the positive route cache.
    pub cache_hits: u64,
    /// Resolutions that had to ask the store.
    pub cache_misses: u64,
    /// Entries held by the route cache now (expired ones not yet swept included).
    pub cache_entries: u64,
    /// Entries evicted because the cache was full.
    pub cache_evictions: u64,
    /// Store reads issued (single-flight: one per group of concurrent misses).
    pub store_reads: u64,
    /// Store calls that failed.
    pub store_failures: u64,
    /// Store recovery events seen.
    pub store_recoveries: u64,
    /// Authority write attempts fewer replicas acknowledged than asked
    /// (`StoreError::NotReplicated`: the outcome is unknown, and the write
    /// is retried with its proposal; docs/location-store.md, "Failover and
    /// durability").
    pub store_writes_unreplicated: u64,
    /// Ownerships given up after a store recovery event because the store
    /// no longer named this node (`OwnershipLost`).
    pub ownerships_lost: u64,
    /// Resolutions by tag.
    pub resolutions: ResolutionCounts,
    /// Entries removed, by reason.
    pub invalidations: [(InvalidationReason, u64); 5],
    /// Frames and Message Follow.
    pub follow: FollowStats,
    /// Requests and their terminal results.
    pub requests: RequestStats,
    /// Session relays.
    pub sessions: SessionStats,
    /// Relocation handoffs.
    pub relocation: RelocationStats,
    /// Table sizes.
    pub tables: TableStats,
    /// Latency histograms.
    pub latencies: crate::latency::LatencyStats,
}

impl Stats {
    /// Entries removed for `reason`.
    pub fn invalidations_for(&self, reason: InvalidationReason) -> u64 {
        self.invalidations[reason as usize].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn striped_counter_sums_every_thread() {
        let c = std::sync::Arc::new(StripedCounter::default());
        // More threads over time than stripes: leases are reused, and counts
        // are never lost.
        for _ in 0..(STRIPES / 4 + 2) {
            let threads: Vec<_> = (0..8)
                .map(|_| {
                    let c = c.clone();
                    std::thread::spawn(move || (0..1000).for_each(|_| c.incr()))
                })
                .collect();
            threads
                .into_iter()
                .for_each(|t| t.join().expect("thread ran"));
        }
        assert_eq!(c.get(), (STRIPES as u64 / 4 + 2) * 8000);
        let c = std::sync::Arc::new(StripedCounter::default());
        let threads: Vec<_> = (0..(STRIPES + 8))
            .map(|_| {
                let c = c.clone();
                std::thread::spawn(move || (0..1000).for_each(|_| c.incr()))
            })
            .collect();
        threads
            .into_iter()
            .for_each(|t| t.join().expect("thread ran"));
        assert_eq!(
            c.get(),
            1000 * (STRIPES as u64 + 8),
            "shared cell takes the overflow"
        );
    }

    #[test]
    fn snapshot_counts_hits_as_ready_routes() {
        let c = Counters::default();
        c.cache_hits.incr();
        c.ready_from_store.incr();
        c.invalidated(InvalidationReason::StaleRoute, 3);
        let s = c.snapshot(7);
        assert_eq!(s.resolutions.ready_route, 2);
        assert_eq!(s.invalidations_for(InvalidationReason::StaleRoute), 3);
        assert_eq!(s.cache_entries, 7);
    }
}
