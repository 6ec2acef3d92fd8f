//! `zlink demo`: three MeshNode runtimes in one process, sharing one
//! Location Store, walk through the routing rules of spec §2: cold and warm
//! resolution, a relocation met by a stale cached route, Missing and
//! Unavailable. Scene f. (`cliff`) measures Message Follow detours when
//! objects move under traffic, with relay notifications on and off, on the
//! core's in-process mesh harness. Scene g. (`requests`) runs
//! request/reply of spec §4 on the three nodes again: replies on the reply
//! route through a relocation, a timeout, a cancellation, late replies
//! dropped, and exactly one terminal result per request. Scene h.
//! (`handoff`) moves an actor three times under load with the relocation
//! protocol of §3.3 and fails if any operation is lost, runs twice or runs
//! on a node that no longer owned the actor. The last scene, i.
//! (`session`), added after h. and before the totals, is spec §3 on its
//! own in-process mesh: a session bound to three actors, one of them
//! relocated mid-stream (seal, held messages, command 44), session order
//! kept per actor, a push and a disconnect.
//!
//! The store is the embedded one (one manual clock drives everything) or,
//! with `--store URL`, a real Redis or Redis Cluster under a fresh key
//! prefix (real time; see `cluster`). Every scene checks the outcomes it
//! narrates on either store and fails the command when one differs, so
//! `zlink demo --json` doubles as the smoke test `make test` runs.

use std::error::Error;
use std::fmt::{self, Display};
use std::io::{self, Write};
use std::path::Path;

use zlink_core::{InvalidationReason, Stats};

/// A scene saw an outcome other than the one it demonstrates: the core's
/// behaviour no longer matches what the demo (and the spec) says.
#[derive(Debug)]
struct Unexpected(String);

impl Display for Unexpected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unexpected outcome: {}", self.0)
    }
}

impl Error for Unexpected {}

/// Fails the current scene unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(Box::new($crate::demo::Unexpected(format!($($msg)+))));
        }
    };
}

mod cliff;
mod cluster;
mod handoff;
mod moves;
mod requests;
mod scenes;
mod session;
mod summary;

pub(crate) use cluster::Backend;
use cluster::Cluster;
use scenes::{PLAYER, SCENES};

type DemoResult<T = ()> = Result<T, Box<dyn Error>>;

/// Prints the narration, or nothing in `--json` mode so stdout stays one
/// JSON document.
struct Narrator {
    quiet: bool,
}

// Write errors are ignored: a reader that stops early (`zlink demo | head`)
// must not stop the scenes, whose checks decide the exit status.
impl Narrator {
    fn scene(&self, title: &str) {
        if !self.quiet {
            let _ = writeln!(io::stdout(), "\n== {title}");
        }
    }

    fn say(&self, line: impl Display) {
        if !self.quiet {
            let _ = writeln!(io::stdout(), "  {line}");
        }
    }
}

/// What the demo prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// The narration.
    Narration,
    /// The narration, then each node's metrics.
    Metrics,
    /// One JSON summary.
    Json,
}

impl Output {
    pub(crate) fn of(json: bool, metrics: bool) -> Output {
        match (json, metrics) {
            (true, _) => Output::Json,
            (false, true) => Output::Metrics,
            (false, false) => Output::Narration,
        }
    }
}

/// Runs every scene in order on `backend`; the first unexpected outcome
/// stops the demo.
pub(crate) fn run(output: Output, backend: Backend, trace: Option<&Path>) -> DemoResult {
    let narrator = Narrator {
        quiet: output == Output::Json,
    };
    let cluster = Cluster::start(backend)?;
    for line in cluster.intro() {
        narrator.say(line);
    }
    for (name, scene) in SCENES {
        scene(&cluster, &narrator).map_err(|e| format!("scene {name}: {e}"))?;
    }
    match output {
        Output::Json => writeln!(io::stdout(), "{}", summary::summary(&cluster))?,
        Output::Narration => totals(&cluster, &narrator),
        Output::Metrics => {
            totals(&cluster, &narrator);
            metrics(&cluster, &narrator);
        }
    }
    if let Some(path) = trace {
        let diagram = cluster.handoff.get().and_then(|h| h.diagram.as_ref());
        let diagram = diagram.ok_or_else(|| Unexpected("scene h. drew nothing".into()))?;
        let title = "zlink demo, scene h.: an actor moves a -> b -> c -> a under traffic";
        let (mermaid, page) = crate::diagram::write(path, title, diagram)?;
        narrator.say(format_args!(
            "scene h. drawn ({} events): {mermaid} (Mermaid), {page} (open it in a browser)",
            diagram.len()
        ));
    }
    Ok(())
}

/// Each node's metrics, as a scrape of it would read them.
fn metrics(cluster: &Cluster, narrator: &Narrator) {
    for node in cluster.nodes() {
        narrator.scene(&format!("metrics of {} (Prometheus text)", node.name));
        let families = zlink_bridge::metrics::families(&node.rt.stats());
        let _ = write!(
            io::stdout(),
            "{}",
            zlink_bridge::metrics::prometheus_text(&families)
        );
    }
}

/// The closing narration: the mesh's main counters and, on Redis, where
/// the records the demo left can be inspected.
fn totals(cluster: &Cluster, narrator: &Narrator) {
    let all: Vec<Stats> = cluster.nodes().iter().map(|n| n.rt.stats()).collect();
    narrator.scene("totals");
    narrator.say(format_args!(
        "{} scenes checked; cache hits {}, misses {}, store reads {}, stale-route invalidations {}",
        SCENES.len(),
        all.iter().map(|s| s.cache_hits).sum::<u64>(),
        all.iter().map(|s| s.cache_misses).sum::<u64>(),
        all.iter().map(|s| s.store_reads).sum::<u64>(),
        all.iter()
            .map(|s| s.invalidations_for(InvalidationReason::StaleRoute))
            .sum::<u64>(),
    ));
    narrator.say("(`zlink demo --json` prints every counter)");
    if let Backend::Redis { url, prefix } = &cluster.backend {
        narrator.say(format_args!(
            "the records stay in Redis under {prefix}:*; read one with\n    \
             zlink inspect --store {} --prefix {prefix} actor {PLAYER}",
            crate::store::masked(url),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scene_passes_and_the_summary_has_the_documented_keys() {
        let cluster = Cluster::start(Backend::Embedded).expect("the runtimes start");
        let quiet = Narrator { quiet: true };
        for (name, scene) in SCENES {
            scene(&cluster, &quiet).unwrap_or_else(|e| panic!("scene {name}: {e}"));
        }
        let doc = summary::summary(&cluster);
        for key in [
            "resolutions",
            "cache_hits",
            "cache_misses",
            "store_reads",
            "invalidations",
            "scenes",
            "nodes",
            "store",
        ] {
            assert!(doc.get(key).is_some(), "missing top-level key {key}");
        }
        for tag in ["ReadyRoute", "Missing", "Unavailable", "StoreFailure"] {
            assert!(doc["resolutions"][tag].is_u64(), "missing resolution {tag}");
        }
        assert_eq!(doc["invalidations"]["stale_route"], 1);
        assert_eq!(doc["resolutions"]["StoreFailure"], 0);
        assert_eq!(doc["nodes"]["node-c"]["rid"], 3);
        assert_eq!(doc["store"], serde_json::json!({"kind": "memory"}));
        // The lease scene ends at 31 s; the request/reply scene then moves
        // the clock past one 200 ms request timeout.
        assert_eq!(doc["clock_ms"], 31_200, "the manual timeline is unchanged");
    }

    #[test]
    fn the_request_reply_scene_ends_every_request_once_and_reports_it() {
        let cluster = Cluster::start(Backend::Embedded).expect("the runtimes start");
        let quiet = Narrator { quiet: true };
        for (name, scene) in SCENES {
            scene(&cluster, &quiet).unwrap_or_else(|e| panic!("scene {name}: {e}"));
        }
        let doc = summary::summary(&cluster);
        assert_eq!(doc["requests"], 4, "{doc}");
        assert_eq!(
            doc["terminal_results"],
            serde_json::json!({
                "Reply": 2, "Error": 0, "Timeout": 1, "Cancelled": 1, "Shutdown": 0
            })
        );
        assert_eq!(doc["double_completions"], 0);
        assert_eq!(doc["late_results_dropped"], 2);
        // The relayed request's notification dropped one cached route.
        assert_eq!(doc["invalidations"]["relay_notification"], 1);
        let late: u64 = cluster
            .nodes()
            .iter()
            .map(|n| n.rt.stats().requests.late_results)
            .sum();
        assert_eq!(late, 2, "the core counts late arrivals under that name");
        assert!(cluster.nodes().iter().all(|n| n.rt.pending_requests() == 0));
    }

    #[test]
    fn the_handoff_scene_moves_three_times_with_nothing_lost_and_one_owner() {
        let cluster = Cluster::start(Backend::Embedded).expect("the runtimes start");
        let quiet = Narrator { quiet: true };
        for (name, scene) in SCENES {
            scene(&cluster, &quiet).unwrap_or_else(|e| panic!("scene {name}: {e}"));
        }
        let doc = summary::summary(&cluster);
        assert_eq!(doc["relocations"], 3, "{doc}");
        assert_eq!(doc["two_owner_deliveries"], 0, "{doc}");
        assert!(doc["held"].as_u64().is_some_and(|n| n > 0), "{doc}");
        assert!(doc["relayed_after_capture"].as_u64().is_some_and(|n| n > 0));
        let h = &doc["handoff"];
        assert_eq!(h["lost"], 0, "{h}");
        assert_eq!(h["duplicated"], 0, "{h}");
        assert_eq!(
            h["delivered"].as_u64(),
            Some(h["messages_sent"].as_u64().unwrap() + h["requests_sent"].as_u64().unwrap()),
            "{h}"
        );
        assert_eq!(h["replies"], h["requests_sent"], "{h}");
    }

    #[test]
    fn the_session_scene_runs_last_and_reports_its_keys() {
        let cluster = Cluster::start(Backend::Embedded).expect("the runtimes start");
        let quiet = Narrator { quiet: true };
        for (name, scene) in SCENES {
            scene(&cluster, &quiet).unwrap_or_else(|e| panic!("scene {name}: {e}"));
        }
        assert_eq!(SCENES.last().map(|(name, _)| *name), Some("session"));
        let doc = summary::summary(&cluster);
        // 32 messages sent at once and 3 disconnect notifications; the 4
        // held messages command 44 released count as held only.
        assert_eq!(doc["session_relays"], 35, "{doc}");
        assert_eq!(doc["session_held"], 4, "{doc}");
        assert_eq!(doc["session_order_violations"], 0, "{doc}");
        assert_eq!(
            doc["session"],
            serde_json::json!({
                "actors": 3,
                "rounds": 12,
                "messages_sent": 36,
                "delivered": 36,
                "held_released": 4,
                "disconnect_notifications": 3,
                "pushes": 1,
                "session_owner_lookups": 0,
            })
        );
        // Its own mesh: the three demo nodes count no session relay.
        assert!(
            cluster
                .nodes()
                .iter()
                .all(|n| n.rt.stats().sessions == zlink_core::SessionStats::default())
        );
    }

    /// The keys scene f. adds to `--json`, for each run and at the top level.
    const CLIFF_KEYS: [&str; 8] = [
        "messages_sent",
        "delivered",
        "lost",
        "duplicated",
        "follow_relays",
        "notifications_sent",
        "notifications_suppressed",
        "detours_per_move_per_sender",
    ];

    #[test]
    fn the_cliff_scene_meets_the_target_and_reports_both_runs() {
        let cluster = Cluster::start(Backend::Embedded).expect("the runtimes start");
        let quiet = Narrator { quiet: true };
        for (name, scene) in SCENES {
            scene(&cluster, &quiet).unwrap_or_else(|e| panic!("scene {name}: {e}"));
        }
        let doc = summary::summary(&cluster);
        let on = &doc["cliff"]["notifications_on"];
        let off = &doc["cliff"]["notifications_off"];
        for key in CLIFF_KEYS {
            assert!(on[key].is_number(), "notifications_on lacks {key}: {doc}");
            assert!(off[key].is_number(), "notifications_off lacks {key}: {doc}");
            assert_eq!(
                doc[key], on[key],
                "top-level {key} is the notifications-on run's"
            );
        }
        let rate = |run: &serde_json::Value| {
            run["detours_per_move_per_sender"]
                .as_f64()
                .expect("a number")
        };
        assert!(rate(on) <= cliff::TARGET, "{on}");
        assert!(rate(on) < rate(off), "on {on}, off {off}");
        for run in [on, off] {
            assert_eq!(run["lost"], 0, "{run}");
            assert_eq!(run["duplicated"], 0, "{run}");
            assert_eq!(run["delivered"], run["messages_sent"], "{run}");
        }
        // 3 senders × 3 actors × 40 rounds; 9 moves seen by 3 senders each.
        assert_eq!(on["messages_sent"], 360);
        assert_eq!(on["move_senders"], 27);
        // On: one detour, one notification, one refreshed route per sender
        // per move. Off: every message after the first move detours, through
        // as many hops as moves made, and the relayer's one notification per
        // sender and route (dropped) is never repeated.
        assert_eq!(on["detours"], 27);
        assert_eq!(on["notifications_sent"], 27);
        assert_eq!(on["routes_refreshed"], 27);
        assert_eq!(on["notifications_suppressed"], 0);
        assert_eq!(off["detours"], 270);
        assert_eq!(off["follow_relays"], 90 * (1 + 2 + 3));
        assert_eq!(off["notifications_sent"], 9);
        assert_eq!(off["notifications_dropped"], 9);
        assert_eq!(off["notifications_suppressed"], 270 - 9);
        assert_eq!(off["routes_refreshed"], 0);
        assert_eq!(off["longest_detour_hops"], 3);
    }

    #[test]
    fn a_cliff_run_counts_what_the_mesh_did() {
        let on = cliff::run(true).expect("the run completes");
        let off = cliff::run(false).expect("the run completes");
        cliff::check(&on, "on").expect("nothing lost or run twice");
        cliff::check(&off, "off").expect("nothing lost or run twice");
        assert_eq!(on.sent_after_a_move, 270);
        assert_eq!(off.detours, off.sent_after_a_move);
        assert!((on.detours_per_move_per_sender() - 1.0).abs() < f64::EPSILON);
        assert!((off.detours_per_move_per_sender() - 10.0).abs() < f64::EPSILON);
        assert_eq!(on.max_detours_one_sender_one_move, 1);
        assert_eq!(off.max_detours_one_sender_one_move, 10);
    }
}
