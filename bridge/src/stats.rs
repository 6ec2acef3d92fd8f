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
    /// What it counts, in one sentence.
    pub help: &'static str,
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

    /// Whether it is a level that goes up and down (an entry count of a
    /// table or the cache), not a running total.
    pub fn is_gauge(&self) -> bool {
        matches!(
            (self.group, self.name),
            ("", "cache_entries") | ("tables", _)
        ) && self.name != "dedup_evictions"
    }
}

/// How many counters the C struct `zlink_stats` holds (the list's first).
pub const C_COUNTERS: usize = 58;

/// Every counter of `s`, in the list's order.
pub fn counters(s: &Stats) -> Vec<Counter> {
    let mut out = Vec::with_capacity(64);
    let mut group = |group: &'static str, items: &[(&'static str, u64, &'static str)]| {
        out.extend(items.iter().map(|&(name, value, help)| Counter {
            group,
            name,
            value,
            help,
        }));
    };
    group(
        "",
        &[
            (
                "cache_hits",
                s.cache_hits,
                "Resolutions answered by the route cache.",
            ),
            (
                "cache_misses",
                s.cache_misses,
                "Resolutions that asked the store.",
            ),
            (
                "cache_entries",
                s.cache_entries,
                "Entries in the route cache now.",
            ),
            (
                "cache_evictions",
                s.cache_evictions,
                "Entries evicted because the cache was full.",
            ),
            (
                "store_reads",
                s.store_reads,
                "Store reads issued (one per group of concurrent misses).",
            ),
            (
                "store_failures",
                s.store_failures,
                "Store calls that failed.",
            ),
            (
                "store_recoveries",
                s.store_recoveries,
                "Store recovery events seen.",
            ),
        ],
    );
    let r = &s.resolutions;
    group(
        "resolutions",
        &[
            (
                "ready_route",
                r.ready_route,
                "Resolutions that ended ReadyRoute (cache hits included).",
            ),
            ("missing", r.missing, "Resolutions that ended Missing."),
            (
                "unavailable",
                r.unavailable,
                "Resolutions that ended Unavailable.",
            ),
            (
                "store_failure",
                r.store_failure,
                "Resolutions that ended StoreFailure.",
            ),
        ],
    );
    let reasons = InvalidationReason::ALL.map(|r| {
        (
            r.as_str(),
            s.invalidations_for(r),
            "Route cache entries removed, by reason.",
        )
    });
    group("invalidations", &reasons);
    let f = &s.follow;
    group(
        "follow",
        &[
            (
                "delivered",
                f.delivered,
                "Operations admitted to a local application queue.",
            ),
            (
                "relays",
                f.relays,
                "Operations relayed on a Message Follow route.",
            ),
            (
                "notifications_sent",
                f.notifications_sent,
                "Relay notifications (command 50) handed to the host to send.",
            ),
            (
                "notifications_suppressed",
                f.notifications_suppressed,
                "Relay notifications the dedup registry suppressed.",
            ),
            (
                "notification_failures",
                f.notification_failures,
                "Relay notification sends the host reported failed.",
            ),
            (
                "rejections_sent",
                f.rejections_sent,
                "Rejections sent back to an operation's origin.",
            ),
            (
                "frames_dropped",
                f.frames_dropped,
                "Frames dropped as undecodable.",
            ),
        ],
    );
    let q = &s.requests;
    group(
        "requests",
        &[
            ("sent", q.sent, "Requests sent."),
            ("replies", q.replies, "Requests ended with a reply."),
            (
                "errors",
                q.errors,
                "Requests ended with an error reply or a route error.",
            ),
            ("timeouts", q.timeouts, "Requests ended by their deadline."),
            ("cancelled", q.cancelled, "Requests ended by cancellation."),
            ("shutdown", q.shutdown, "Requests ended by shutdown."),
            (
                "late_results",
                q.late_results,
                "Results that came after a request's terminal one (dropped).",
            ),
            (
                "unroutable",
                q.unroutable,
                "Requests dropped because their reply route could not be restored.",
            ),
        ],
    );
    group(
        "follow",
        &[(
            "frames_foreign_sender",
            f.frames_foreign_sender,
            "Frames refused because their sender was not their connection's node.",
        )],
    );
    group(
        "sessions",
        &[(
            "bind_timeouts",
            s.sessions.bind_timeouts,
            "Binds refused because no terminal reply came within the bind timeout.",
        )],
    );
    let r = &s.relocation;
    group(
        "relocation",
        &[
            ("begun", r.begun, "Moves begun here (source)."),
            ("restores", r.restores, "Restore requests taken (target)."),
            (
                "committed",
                r.committed,
                "Owner CASes that succeeded here (target).",
            ),
            (
                "handed_off",
                r.handed_off,
                "Moves this source handed off to a committed target.",
            ),
            (
                "aborted",
                r.aborted,
                "Moves abandoned before relay-ready (either side).",
            ),
            ("failed", r.failed, "Moves that failed after relay-ready."),
            (
                "held",
                r.held,
                "Operations held for a move (source hold or target queue).",
            ),
            (
                "relayed",
                r.relayed,
                "Operations relayed by a source to its target.",
            ),
            (
                "control_refused",
                r.control_refused,
                "Relocation control frames refused.",
            ),
        ],
    );
    let t = &s.tables;
    group(
        "tables",
        &[
            (
                "pending_requests",
                t.pending_requests,
                "Requests waiting for their terminal result.",
            ),
            (
                "request_deadlines",
                t.request_deadlines,
                "Request deadline entries.",
            ),
            ("sessions", t.sessions, "Sessions this runtime owns."),
            (
                "pending_binds",
                t.pending_binds,
                "Binds waiting for their terminal reply.",
            ),
            (
                "session_deadlines",
                t.session_deadlines,
                "Seal and bind deadline entries.",
            ),
            (
                "registrations",
                t.registrations,
                "Session registrations of Actors this runtime owns.",
            ),
            (
                "parked_binds",
                t.parked_binds,
                "Rebind replies parked until the previous owner's acknowledgement.",
            ),
            (
                "parked_deadlines",
                t.parked_deadlines,
                "Parked-reply deadline entries.",
            ),
            (
                "follow_routes",
                t.follow_routes,
                "Message Follow routes held.",
            ),
            (
                "follow_deadlines",
                t.follow_deadlines,
                "Follow-route expiry entries.",
            ),
            (
                "dedup_entries",
                t.dedup_entries,
                "Relay-notification dedup entries.",
            ),
            (
                "dedup_evictions",
                t.dedup_evictions,
                "Dedup entries dropped to stay within their bounds.",
            ),
            ("store_flights", t.store_flights, "Store reads in flight."),
            (
                "relocation_sources",
                t.relocation_sources,
                "Relocations running here as source.",
            ),
            (
                "relocation_targets",
                t.relocation_targets,
                "Relocations running here as target.",
            ),
            (
                "relocation_deadlines",
                t.relocation_deadlines,
                "Relocation deadline entries.",
            ),
        ],
    );
    let ss = &s.sessions;
    group(
        "sessions",
        &[
            (
                "relays",
                ss.relays,
                "Session relays sent on a stored binding route.",
            ),
            (
                "held",
                ss.held,
                "Session relays held while their Actor was sealed for a move.",
            ),
            (
                "closed_by_seal_timeout",
                ss.closed_by_seal_timeout,
                "Sessions closed because no route refresh came within the seal timeout.",
            ),
        ],
    );
    group(
        "",
        &[
            (
                "store_writes_unreplicated",
                s.store_writes_unreplicated,
                "Authority writes fewer replicas acknowledged than asked (outcome unknown, retried).",
            ),
            (
                "ownerships_lost",
                s.ownerships_lost,
                "Ownerships given up because the store no longer named this node.",
            ),
        ],
    );
    group(
        "requests",
        &[(
            "undecodable_answered",
            s.requests.undecodable_answered,
            "Undecodable requests answered with a Decode error reply on their reply route.",
        )],
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
