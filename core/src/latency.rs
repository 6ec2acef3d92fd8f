//! Latency histograms (DESIGN §6): how long the store took to answer, a
//! relocation to end, work to wait for a move, a request to be answered
//! and a bind to be settled. Each is a fixed set of buckets of atomic
//! counts, recorded only where the work already waited (a store round
//! trip, a move's end, a reply): never on the cache-hit path.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The buckets' upper bounds, in nanoseconds: 50 µs to 10 s, then +Inf.
/// One set for every histogram, so hosts and dashboards compare them.
pub const BUCKET_BOUNDS_NS: [u64; 17] = [
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000,
    2_500_000_000,
    5_000_000_000,
    10_000_000_000,
];

/// Buckets a histogram counts in: one per bound, and +Inf.
const BUCKETS: usize = BUCKET_BOUNDS_NS.len() + 1;

/// One histogram: counts per bucket, their sum and how many.
#[derive(Debug, Default)]
pub(crate) struct Histogram {
    buckets: [AtomicU64; BUCKETS],
    sum_ns: AtomicU64,
}

impl Histogram {
    pub(crate) fn record(&self, d: Duration) {
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let bucket = BUCKET_BOUNDS_NS.partition_point(|&bound| bound < ns);
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.sum_ns.fetch_add(ns, Ordering::Relaxed);
    }

    fn snapshot(&self) -> HistogramStats {
        HistogramStats {
            counts: std::array::from_fn(|i| self.buckets[i].load(Ordering::Relaxed)),
            sum_ns: self.sum_ns.load(Ordering::Relaxed),
        }
    }
}

/// A histogram read now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HistogramStats {
    /// Observations per bucket (not cumulative): `counts[i]` were at most
    /// `BUCKET_BOUNDS_NS[i]` and above the bound before; the last, above
    /// every bound.
    pub counts: [u64; BUCKETS],
    /// The observations' sum, in nanoseconds.
    pub sum_ns: u64,
}

impl HistogramStats {
    /// How many observations.
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }
}

/// The runtime's histograms.
#[derive(Debug, Default)]
pub(crate) struct Latencies {
    pub(crate) store_read: Histogram,
    pub(crate) store_write: Histogram,
    pub(crate) relocation: Histogram,
    pub(crate) relocation_held: Histogram,
    pub(crate) request: Histogram,
    pub(crate) bind: Histogram,
}

impl Latencies {
    pub(crate) fn snapshot(&self) -> LatencyStats {
        LatencyStats {
            store_read: self.store_read.snapshot(),
            store_write: self.store_write.snapshot(),
            relocation: self.relocation.snapshot(),
            relocation_held: self.relocation_held.snapshot(),
            request: self.request.snapshot(),
            bind: self.bind.snapshot(),
        }
    }
}

/// Every latency histogram, read now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LatencyStats {
    /// A store read, from the call to its answer (wall time).
    pub store_read: HistogramStats,
    /// An authority or descriptor write, from the call to its answer (wall
    /// time, the replicas' acknowledgement included).
    pub store_write: HistogramStats,
    /// A move, on its source: from `begin_relocation` to its hand-off,
    /// abort or failure (runtime clock).
    pub relocation: HistogramStats,
    /// A move, on its target: from the Restore (from when the object's
    /// work is held here) to the commit that releases it, or the move's
    /// end (runtime clock).
    pub relocation_held: HistogramStats,
    /// A request, from its send to its reply or error reply (runtime
    /// clock; timeouts, cancels and shutdowns are not answers).
    pub request: HistogramStats,
    /// A bind, from its send to its terminal reply, Bound or BindRefused
    /// (runtime clock; a bind timeout is not a reply).
    pub bind: HistogramStats,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_observation_lands_in_the_first_bucket_that_holds_it() {
        let h = Histogram::default();
        h.record(Duration::from_micros(50));
        h.record(Duration::from_micros(51));
        h.record(Duration::from_secs(60));
        let s = h.snapshot();
        assert_eq!(s.counts[0], 1, "50 µs is at most the first bound");
        assert_eq!(s.counts[1], 1);
        assert_eq!(s.counts[BUCKETS - 1], 1, "above every bound: +Inf");
        assert_eq!(s.count(), 3);
        assert_eq!(s.sum_ns, 50_000 + 51_000 + 60_000_000_000);
    }
}
