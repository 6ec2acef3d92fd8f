//! The `--json` document: the runtimes' counters, the store the demo ran
//! on, the scenes it checked, what the cliff scene measured, what the
//! request/reply scene saw and what the session scene relayed.

use serde_json::{Map, Value, json};
use zlink_core::{InvalidationReason, Stats};

use super::cluster::{Backend, Cluster, MESH};
use super::scenes::SCENES;
use crate::store;

/// Reads one counter out of a snapshot.
type Read = fn(&Stats) -> u64;

/// The counters of `stats`, summed: one runtime's, or the whole mesh's.
pub(super) fn counters_json(stats: &[Stats]) -> Map<String, Value> {
    let sum = |f: Read| -> u64 { stats.iter().map(f).sum() };
    let invalidations: Map<String, Value> = InvalidationReason::ALL
        .iter()
        .map(|&r| {
            let total: u64 = stats.iter().map(|s| s.invalidations_for(r)).sum();
            (r.as_str().to_owned(), json!(total))
        })
        .collect();
    let mut map = Map::new();
    map.insert(
        "resolutions".into(),
        json!({
            "ReadyRoute": sum(|s| s.resolutions.ready_route),
            "Missing": sum(|s| s.resolutions.missing),
            "Unavailable": sum(|s| s.resolutions.unavailable),
            "StoreFailure": sum(|s| s.resolutions.store_failure),
        }),
    );
    let counters: [(&str, Read); 7] = [
        ("cache_hits", |s| s.cache_hits),
        ("cache_misses", |s| s.cache_misses),
        ("cache_entries", |s| s.cache_entries),
        ("cache_evictions", |s| s.cache_evictions),
        ("store_reads", |s| s.store_reads),
        ("store_failures", |s| s.store_failures),
        ("store_recoveries", |s| s.store_recoveries),
    ];
    for (name, f) in counters {
        map.insert(name.into(), json!(sum(f)));
    }
    map.insert("invalidations".into(), Value::Object(invalidations));
    map
}

/// The `--json` document: mesh totals at the top level, then per node; the
/// cliff scene's numbers under `cliff` for both runs, and its
/// notifications-on run's main ones also at the top level (`messages_sent`,
/// `delivered`, `lost`, `duplicated`, `follow_relays`, `notifications_sent`,
/// `notifications_suppressed`, `detours_per_move_per_sender`). The
/// request/reply scene adds `requests` (sent), `terminal_results` (by kind:
/// Reply, Error, Timeout, Cancelled, Shutdown), `double_completions`
/// (requests completed twice: 0, or the scene fails) and
/// `late_results_dropped` (results that arrived after a request had ended;
/// the core's `RequestStats::double_completions` counts these). The session
/// scene adds `session_relays` (relays its Session owner sent at once on a
/// stored binding route, the three disconnect notifications included:
/// `SessionStats::relays`; the held messages command 44 released are not
/// counted there but in `session_held`), `session_held` (messages held while
/// the relocating actor's binding was sealed: `SessionStats::held`),
/// `session_order_violations` (deliveries to an actor whose session
/// sequence was not above the previous one delivered to it, from the mesh
/// ledger's `session_delivered` and the disconnect notifications: 0, or the
/// scene fails) and a `session` object with the scene's own tally. The
/// relocation handoff scene adds `relocations`, `held`, `held_most`,
/// `relayed_after_capture` and `two_owner_deliveries` (operations run by a
/// node that no longer owned the object: 0, or the scene fails), and a
/// `handoff` object with those, its own `delivered`, `lost` and
/// `duplicated` (the top-level keys of those names are the cliff's) and
/// its traffic.
pub(super) fn summary(cl: &Cluster) -> Value {
    let all: Vec<Stats> = cl.nodes().iter().map(|n| n.rt.stats()).collect();
    let mut doc = counters_json(&all);
    let nodes: Map<String, Value> = cl
        .nodes()
        .iter()
        .zip(&all)
        .map(|(node, stats)| {
            let mut one = counters_json(std::slice::from_ref(stats));
            one.insert("rid".into(), json!(node.rt.identity().rid.get()));
            one.insert("owned".into(), json!(node.rt.owned_count()));
            (node.name.to_owned(), Value::Object(one))
        })
        .collect();
    doc.insert("mesh".into(), json!(MESH));
    doc.insert(
        "scenes".into(),
        json!(SCENES.iter().map(|(name, _)| *name).collect::<Vec<_>>()),
    );
    doc.insert("clock_ms".into(), json!(cl.time.now().as_millis()));
    doc.insert("store".into(), store_json(&cl.backend));
    doc.insert("nodes".into(), Value::Object(nodes));
    if let Some(cliff) = cl.cliff.get() {
        doc.extend(cliff.on.json());
        doc.insert("cliff".into(), cliff.json());
    }
    if let Some(requests) = cl.requests.get() {
        doc.extend(requests.json());
    }
    if let Some(handoff) = cl.handoff.get() {
        doc.extend(handoff.json());
        doc.insert("handoff".into(), handoff.detail_json());
    }
    if let Some(session) = cl.session.get() {
        doc.extend(session.json());
        doc.insert("session".into(), session.detail_json());
    }
    Value::Object(doc)
}

/// Which store the demo ran on; for Redis, where to find what it left.
fn store_json(backend: &Backend) -> Value {
    match backend {
        Backend::Embedded => json!({"kind": "memory"}),
        Backend::Redis { url, prefix } => json!({
            "kind": "redis",
            "prefix": prefix,
            "cluster": store::is_cluster(url),
        }),
    }
}
