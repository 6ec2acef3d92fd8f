//! The invariants. After every step: no operation delivered twice, no
//! delivery by a node the store did not name as the live owner, no request
//! with two terminal results, no cached route a node was told is invalid,
//! no detour longer than the moves since the route could have been cached.
//! At the end, once every fault ended and every deadline passed: every
//! request has exactly one terminal result, and every operation (direct or
//! session relay) was delivered or ended with a reported result, unless the
//! simulation itself lost a frame carrying it or a process holding it died.

use std::collections::{BTreeMap, BTreeSet};

use zlink_core::{OperationId, SessionEvent};

use super::world::{Invalidated, KIND, World};

/// A broken invariant.
#[derive(Debug, Clone)]
pub(crate) struct Violation {
    pub(crate) invariant: &'static str,
    pub(crate) detail: String,
}

fn fail(invariant: &'static str, detail: String) -> Result<(), Violation> {
    Err(Violation { invariant, detail })
}

/// The checks that hold at every moment.
pub(crate) fn after_step(w: &World) -> Result<(), Violation> {
    let l = &w.mesh.ledger;
    if let Some(op) = l.duplicated().first() {
        let at: Vec<String> = l
            .delivered
            .iter()
            .filter(|(d, _, _)| d == op)
            .map(|(_, node, hops)| format!("node {node} after {hops} hops"))
            .collect();
        return fail(
            "no operation delivered twice",
            format!("{} delivered by {}", describe(w, *op), at.join(", then ")),
        );
    }
    let mut relays = BTreeSet::new();
    for (session, actor, sequence, node) in &l.session_delivered {
        if !relays.insert((*session, actor, *sequence)) {
            return fail(
                "no operation delivered twice",
                format!("session {session} relay {sequence} to {actor} again on node {node}"),
            );
        }
    }
    if w.params.session_order && !w.params.unordered {
        session_order(w)?;
    }
    if let Some((op, node)) = l.unauthorized_deliveries.first() {
        return fail(
            "no delivery by a node that did not own the object",
            format!("{} on node {node}", describe(w, *op)),
        );
    }
    if l.two_owner_deliveries > 0 {
        return fail(
            "no delivery by a node that did not own the object",
            format!("{} by a node without it", l.two_owner_deliveries),
        );
    }
    if let Some(op) = l.double_completions().first() {
        return fail("every request one terminal result", describe(w, *op));
    }
    if let Some(op) = l.delivered_and_ended().first() {
        return fail(
            "every operation one terminal result",
            format!("{} delivered and ended", describe(w, *op)),
        );
    }
    invalidated_routes(w)?;
    detours(w)
}

/// One Session's relays to one Actor arrive in the order the Session
/// accepted them (§3.1 "Session sequence"), across moves and rebinds: on
/// ordered links a later sequence never overtakes an earlier one.
///
/// Opt-in (`--session-order`): §3.3 lets the target commit 1 s after
/// relay-ready without the cutover; when the relay-ready or the relay span
/// is lost or slower than that, command 44 releases the Session's held
/// relays straight to the target ahead of those still in the source's
/// ingress hold (seed 1002422, `--steps 294`).
fn session_order(w: &World) -> Result<(), Violation> {
    let mut last: BTreeMap<(u64, &str), u64> = BTreeMap::new();
    for (session, actor, sequence, node) in &w.mesh.ledger.session_delivered {
        if let Some(prev) = last.insert((session.0, actor.as_str()), *sequence)
            && prev > *sequence
        {
            return fail(
                "session order kept",
                format!(
                    "session {session} relay {sequence} to {actor} on node {node} after {prev}"
                ),
            );
        }
    }
    Ok(())
}

/// No node's cache holds a route it was told is invalid: a notice named
/// that source tenure, or membership said that owner lease ended.
fn invalidated_routes(w: &World) -> Result<(), Violation> {
    for rid in w.live_nodes() {
        let told = &w.invalidated[(rid - 1) as usize];
        if told.is_empty() {
            continue;
        }
        let generation = w.mesh.node_identity(rid).generation;
        let node = w.mesh.node(rid);
        for (i, id) in w.objects.iter().enumerate() {
            let Ok(Some(route)) = node.lookup_cached(KIND, id) else {
                continue;
            };
            let f = route.fence;
            let stale = told
                .iter()
                .filter(|(g, _)| *g == generation)
                .find(|(_, inv)| match inv {
                    Invalidated::Tenure {
                        object,
                        node,
                        node_generation,
                        object_generation,
                        authority_generation,
                    } => {
                        *object == w.key(i)
                            && route.route.node == *node
                            && f.node_generation == *node_generation
                            && f.object_generation.0 == *object_generation
                            && f.authority_owner_generation.0 == *authority_generation
                    }
                    Invalidated::Lease { node, lease } => {
                        route.route.node == *node && f.owner_lease_generation == *lease
                    }
                });
            if let Some((_, inv)) = stale {
                return fail(
                    "no cache entry served after its invalidation",
                    format!(
                        "node {rid} still routes {id} to node {} after {inv:?}",
                        route.route.node
                    ),
                );
            }
        }
    }
    Ok(())
}

/// A delivery took at most as many Message Follow hops as the object made
/// moves since the sender could have cached its route (its send time less
/// the longest cache lifetime): detours per move per sender are bounded by
/// the cache lifetime, and a notice shortens them (checked above).
fn detours(w: &World) -> Result<(), Violation> {
    let sent: BTreeMap<OperationId, &super::world::Sent> =
        w.sent.iter().map(|s| (s.operation, s)).collect();
    for (op, node, hops) in &w.mesh.ledger.delivered {
        if *hops == 0 {
            continue;
        }
        let Some(s) = sent.get(op) else { continue };
        let id = &w.objects[s.object];
        let since = s.at.before(w.max_cache_age);
        let moves = w
            .commits
            .iter()
            .filter(|(o, at)| o == id && *at >= since)
            .count();
        if usize::from(*hops) > moves {
            return fail(
                "detours per move per sender bounded",
                format!(
                    "{} took {hops} hops to node {node}, {moves} moves of {id} since",
                    describe(w, *op)
                ),
            );
        }
    }
    Ok(())
}

/// The checks that need every fault ended and every deadline passed.
pub(crate) fn at_end(w: &World) -> Result<(), Violation> {
    let l = &w.mesh.ledger;
    let mut completions: BTreeMap<OperationId, usize> = BTreeMap::new();
    for (op, _) in &l.completed {
        *completions.entry(*op).or_default() += 1;
    }
    for (i, r) in w.requests.iter().enumerate() {
        let n = completions.get(&r.operation).copied().unwrap_or(0);
        let alive =
            !w.mesh.is_dead(r.origin) && w.mesh.node_identity(r.origin).generation == r.generation;
        if n > 1 || (alive && n != 1) {
            return fail(
                "every request one terminal result",
                format!("request #{i} from node {} has {n}", r.origin),
            );
        }
    }
    let excused =
        |op: &OperationId| l.lost_with_frames.contains(op) || l.lost_with_process.contains(op);
    if let Some(op) = l.unresolved().into_iter().find(|op| !excused(op)) {
        return fail(
            "nothing silently lost",
            format!("{} neither delivered nor ended", describe(w, op)),
        );
    }
    let refused: BTreeSet<OperationId> = l
        .session_events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::RelayRefused { operation_id, .. } => Some(*operation_id),
            _ => None,
        })
        .collect();
    let closed: BTreeSet<u64> = l
        .session_events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Closed { session } => Some(session.id.0),
            _ => None,
        })
        .collect();
    for r in &w.relays {
        let id = &w.objects[r.object];
        let delivered = l
            .session_delivered
            .iter()
            .any(|(s, a, q, _)| s.0 == r.session && a == id && *q == r.sequence);
        let session = w.sessions.iter().find(|s| s.id == r.session);
        let ended = closed.contains(&r.session) || session.is_some_and(|s| s.ended);
        if !delivered && !ended && !refused.contains(&r.operation) && !excused(&r.operation) {
            return fail(
                "nothing silently lost",
                format!(
                    "session {} relay {} to {id} neither delivered nor refused",
                    r.session, r.sequence
                ),
            );
        }
    }
    Ok(())
}

/// An operation as the trace names it: its send order, object and origin.
fn describe(w: &World, op: OperationId) -> String {
    let l = &w.mesh.ledger;
    let origin = l
        .sent
        .get(&op)
        .map(|(rid, seq)| format!("#{seq} from node {rid}"));
    let object = w
        .sent
        .iter()
        .find(|s| s.operation == op)
        .map(|s| w.objects[s.object].as_str());
    let relay = w.relays.iter().find(|r| r.operation == op).map(|r| {
        format!(
            "session {} relay {} to {}",
            r.session, r.sequence, w.objects[r.object]
        )
    });
    match (origin, object, relay) {
        (Some(origin), Some(object), _) => format!("operation {origin} to {object}"),
        (Some(origin), None, _) => format!("operation {origin}"),
        (None, _, Some(relay)) => relay,
        _ => "a session frame (a disconnect notification or a push)".to_owned(),
    }
}
