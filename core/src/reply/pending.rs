//! The pending-request table of one runtime (spec §4): a request waits here
//! under its correlation until exactly one terminal result, whichever is
//! confirmed first: reply, error, timeout, cancellation or shutdown.
//!
//! Completion removes the entry under its shard's lock, so of any number of
//! concurrent completions exactly one wins; the others learn they were late.
//! Deadlines sit in a min-heap (O(log n) per request); entries completed
//! otherwise are skipped when their deadline comes up, and shed once they
//! outnumber the live ones, so abandoned requests cannot grow the heap.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::clock::MonoTime;
use crate::ids::{CorrelationId, ObjectGeneration, ObjectKey, OperationId};
use crate::timer::Deadlines;

const SHARDS: usize = 16;

/// The Spot execution that started a request (§4.2): its reply resumes that
/// execution and nothing else.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpotExecution {
    /// The Spot that started the request.
    pub spot: ObjectKey,
    /// Its incarnation at that time.
    pub object_generation: ObjectGeneration,
}

/// A request waiting for its terminal result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRequest {
    /// Its operation identity.
    pub operation_id: OperationId,
    /// Its target.
    pub target: ObjectKey,
    /// When it was sent (runtime clock).
    pub sent: MonoTime,
    /// When it times out (runtime clock).
    pub deadline: MonoTime,
    /// The Spot execution that started it, if one did.
    pub origin: Option<SpotExecution>,
}

/// The table.
pub(crate) struct PendingRequests {
    shards: [Mutex<HashMap<CorrelationId, PendingRequest>>; SHARDS],
    deadlines: Mutex<Deadlines<CorrelationId>>,
    live: AtomicUsize,
}

impl Default for PendingRequests {
    fn default() -> Self {
        PendingRequests {
            shards: std::array::from_fn(|_| Mutex::new(HashMap::new())),
            deadlines: Mutex::new(Deadlines::default()),
            live: AtomicUsize::new(0),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl PendingRequests {
    fn shard(&self, c: CorrelationId) -> &Mutex<HashMap<CorrelationId, PendingRequest>> {
        &self.shards[(c.get() % SHARDS as u64) as usize]
    }

    /// Registers a request under `correlation`.
    pub(crate) fn insert(&self, correlation: CorrelationId, request: PendingRequest) {
        let deadline = request.deadline;
        if lock(self.shard(correlation))
            .insert(correlation, request)
            .is_none()
        {
            self.live.fetch_add(1, Ordering::Relaxed);
        }
        // Last: a concurrent expiry that pops this deadline must find the
        // entry, or the request would never time out.
        lock(&self.deadlines).schedule(deadline, correlation);
    }

    /// Takes the request for its one terminal result; `None` if another
    /// result already took it (or it never existed).
    pub(crate) fn take(&self, correlation: CorrelationId) -> Option<PendingRequest> {
        let taken = lock(self.shard(correlation)).remove(&correlation);
        if taken.is_some() {
            self.live.fetch_sub(1, Ordering::Relaxed);
            self.shed();
        }
        taken
    }

    /// Rebuilds the deadline heap once ended requests dominate it.
    fn shed(&self) {
        lock(&self.deadlines).shed(|c| lock(self.shard(*c)).contains_key(c));
    }

    /// The earliest deadline of a request still waiting.
    pub(crate) fn next_deadline(&self) -> Option<MonoTime> {
        lock(&self.deadlines).next_live(|c| lock(self.shard(*c)).contains_key(c))
    }

    /// Takes every request whose deadline is at or before `now`.
    pub(crate) fn take_expired(&self, now: MonoTime) -> Vec<(CorrelationId, PendingRequest)> {
        let mut due = Vec::new();
        loop {
            let next = lock(&self.deadlines).pop_due(now);
            let Some(correlation) = next else {
                return due;
            };
            // Completed otherwise already: nothing to time out.
            if let Some(request) = self.take(correlation) {
                due.push((correlation, request));
            }
        }
    }

    /// Takes every pending request (shutdown).
    pub(crate) fn take_all(&self) -> Vec<(CorrelationId, PendingRequest)> {
        lock(&self.deadlines).clear();
        let all: Vec<_> = self
            .shards
            .iter()
            .flat_map(|shard| lock(shard).drain().collect::<Vec<_>>())
            .collect();
        self.live.fetch_sub(all.len(), Ordering::Relaxed);
        all
    }

    /// Requests waiting now.
    pub(crate) fn len(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    /// Deadline entries held (ended requests' not yet shed included).
    pub(crate) fn deadlines_held(&self) -> usize {
        lock(&self.deadlines).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ObjectKind;

    fn request(op: u64, deadline: u64) -> PendingRequest {
        PendingRequest {
            operation_id: OperationId(op),
            target: ObjectKey::new(ObjectKind::Actor, "a").expect("valid"),
            sent: MonoTime(0),
            deadline: MonoTime(deadline),
            origin: None,
        }
    }

    #[test]
    fn a_request_is_taken_once() {
        let t = PendingRequests::default();
        t.insert(CorrelationId(1), request(10, 100));
        assert!(t.take(CorrelationId(1)).is_some());
        assert!(
            t.take(CorrelationId(1)).is_none(),
            "the second result is late"
        );
    }

    #[test]
    fn deadlines_fire_in_order_and_skip_completed_requests() {
        let t = PendingRequests::default();
        t.insert(CorrelationId(1), request(1, 300));
        t.insert(CorrelationId(2), request(2, 100));
        t.insert(CorrelationId(3), request(3, 200));
        t.take(CorrelationId(3));
        let due: Vec<_> = t
            .take_expired(MonoTime(250))
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        assert_eq!(due, [CorrelationId(2)]);
        assert_eq!(t.len(), 1);
        assert_eq!(t.take_all().len(), 1);
        assert!(t.take_expired(MonoTime(u64::MAX)).is_empty());
    }

    #[test]
    fn a_million_answered_requests_leave_no_deadlines_behind() {
        let t = PendingRequests::default();
        for i in 1..=1_000_000u64 {
            t.insert(CorrelationId(i), request(i, u64::MAX));
            t.take(CorrelationId(i));
        }
        assert_eq!(t.len(), 0);
        assert!(t.deadlines_held() <= 64, "{} held", t.deadlines_held());
    }

    #[test]
    fn a_hundred_thousand_deadlines_cost_log_n_each() {
        let t = PendingRequests::default();
        for i in 0..100_000u64 {
            t.insert(CorrelationId(i + 1), request(i + 1, (i * 7919) % 100_000));
        }
        let due = t.take_expired(MonoTime(49_999));
        assert_eq!(due.len(), 50_000);
        assert!(due.windows(2).all(|w| w[0].1.deadline <= w[1].1.deadline));
        assert_eq!(t.len(), 50_000);
    }
}
