//! The counter snapshot as one ordered list of named counters, the same
//! names in every language: a counter is `(group, name)`; a host shows it
//! nested (Python's `stats()["follow"]["relays"]`) or flat (`flat_name`, the
//! C struct's field `relays`). The C struct `zlink_stats` holds the first
//! [`C_COUNTERS`] of the list, in this order; later counters are only
//! appended.

use zlink_core::{InvalidationReason, Stats};

/// One counter of a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    /// The group (`""` for the top level).
    pub group: &'static str,
    /// Its name within the group.
    pub name: &'static str,
    /// Its value when the snapshot was read.
    pub value: u64,
}

impl Counter {
    /// The flat name (the C struct's field): the group's prefix (none for
    /// `follow`, `table_` for `tables`, `session_` for `sessions` but its
    /// first counter, which C has always called `bind_timeouts`) and the
    /// name.
    pub fn flat_name(&self) -> String {
        match (self.group, self.name) {
            ("" | "follow", name) | ("sessions", name @ "bind_timeouts") => name.to_owned(),
            ("tables", name) => format!("table_{name}"),
            ("sessions", name) => format!("session_{name}"),
            (group, name) => format!("{group}_{name}"),
        }
    }
}

/// How many counters the C struct `zlink_stats` holds (the list's first).
pub const C_COUNTERS: usize = 58;

/// Every counter of `s`, in the list's order.
pub fn counters(s: &Stats) -> Vec<Counter> {
    let mut out = Vec::with_capacity(64);
    let mut group = |group: &'static str, items: &[(&'static str, u64)]| {
        out.extend(
            items
                .iter()
                .map(|&(name, value)| Counter { group, name, value }),
        );
    };
    group(
        "",
        &[
            ("cache_hits", s.cache_hits),
            ("cache_misses", s.cache_misses),
            ("cache_entries", s.cache_entries),
            ("cache_evictions", s.cache_evictions),
            ("store_reads", s.store_reads),
            ("store_failures", s.store_failures),
            ("store_recoveries", s.store_recoveries),
        ],
    );
    let r = &s.resolutions;
    group(
        "resolutions",
        &[
            ("ready_route", r.ready_route),
            ("missing", r.missing),
            ("unavailable", r.unavailable),
            ("store_failure", r.store_failure),
        ],
    );
    let reasons = InvalidationReason::ALL.map(|r| (r.as_str(), s.invalidations_for(r)));
    group("invalidations", &reasons);
    let f = &s.follow;
    group(
        "follow",
        &[
            ("delivered", f.delivered),
            ("relays", f.relays),
            ("notifications_sent", f.notifications_sent),
            ("notifications_suppressed", f.notifications_suppressed),
            ("notification_failures", f.notification_failures),
            ("rejections_sent", f.rejections_sent),
            ("frames_dropped", f.frames_dropped),
        ],
    );
    let q = &s.requests;
    group(
        "requests",
        &[
            ("sent", q.sent),
            ("replies", q.replies),
            ("errors", q.errors),
            ("timeouts", q.timeouts),
            ("cancelled", q.cancelled),
            ("shutdown", q.shutdown),
            ("late_results", q.late_results),
            ("unroutable", q.unroutable),
        ],
    );
    group(
        "follow",
        &[("frames_foreign_sender", f.frames_foreign_sender)],
    );
    group("sessions", &[("bind_timeouts", s.sessions.bind_timeouts)]);
    let r = &s.relocation;
    group(
        "relocation",
        &[
            ("begun", r.begun),
            ("restores", r.restores),
            ("committed", r.committed),
            ("handed_off", r.handed_off),
            ("aborted", r.aborted),
            ("failed", r.failed),
            ("held", r.held),
            ("relayed", r.relayed),
            ("control_refused", r.control_refused),
        ],
    );
    let t = &s.tables;
    group(
        "tables",
        &[
            ("pending_requests", t.pending_requests),
            ("request_deadlines", t.request_deadlines),
            ("sessions", t.sessions),
            ("pending_binds", t.pending_binds),
            ("session_deadlines", t.session_deadlines),
            ("registrations", t.registrations),
            ("parked_binds", t.parked_binds),
            ("parked_deadlines", t.parked_deadlines),
            ("follow_routes", t.follow_routes),
            ("follow_deadlines", t.follow_deadlines),
            ("dedup_entries", t.dedup_entries),
            ("dedup_evictions", t.dedup_evictions),
            ("store_flights", t.store_flights),
            ("relocation_sources", t.relocation_sources),
            ("relocation_targets", t.relocation_targets),
            ("relocation_deadlines", t.relocation_deadlines),
        ],
    );
    let ss = &s.sessions;
    group(
        "sessions",
        &[
            ("relays", ss.relays),
            ("held", ss.held),
            ("closed_by_seal_timeout", ss.closed_by_seal_timeout),
        ],
    );
    group(
        "",
        &[
            ("store_writes_unreplicated", s.store_writes_unreplicated),
            ("ownerships_lost", s.ownerships_lost),
        ],
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_the_c_part_comes_first() {
        let identity = crate::setup::identity("m", 1, 1, 1).expect("identity");
        let rt = zlink_core::Runtime::builder(identity)
            .build()
            .expect("runtime");
        let list = counters(&rt.stats());
        let flat: std::collections::HashSet<String> = list.iter().map(Counter::flat_name).collect();
        assert_eq!(flat.len(), list.len());
        assert_eq!(
            list[C_COUNTERS - 1].flat_name(),
            "table_relocation_deadlines"
        );
        assert_eq!(list[C_COUNTERS].group, "sessions");
    }
}
