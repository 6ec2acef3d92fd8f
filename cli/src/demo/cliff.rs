//! f. The performance cliff (spec §2.5): objects move while senders keep
//! sending. A sender's cached route still names the old owner, so its
//! messages take a Message Follow detour; the relay notification (command
//! 50) makes it refresh after one detour. Without the notification every
//! message detours until the cached route expires.
//!
//! The scene runs twice on `zlink_core::mesh::Mesh`, notifications on, then
//! dropped by the network, with the same traffic and moves. The mesh is
//! in-process by design (its own manual clock and embedded store, frames
//! carried by the harness), so the scene is the same under `--store`.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::{Map, Value, json};
use zlink_core::mesh::{Carried, Mesh};
use zlink_core::{ObjectKind, OperationId, RoutingConfig, Sent};

use super::cluster::{Backend, Cluster};
use super::{DemoResult, Narrator, Unexpected};

const KIND: ObjectKind = ObjectKind::Actor;
/// The mesh: node-a .. node-g (NodeRid 1..=7).
const NODES: u64 = 7;
/// The nodes that send: never an owner, so each move leaves every sender
/// with a stale cached route (a move's target refreshes its own route when
/// it commits, so an owner sending to itself would never detour).
const SENDERS: [u64; 3] = [5, 6, 7];
/// The actors they send to, all activated on node-a.
const OBJECTS: [&str; 3] = ["cart-1", "cart-2", "cart-3"];
/// Where every actor goes, one move at a time (node-a .. node-d).
const PATH: [u64; 4] = [1, 2, 3, 4];
/// Rounds before the first move (the senders' routes are cached in the first).
const WARM_ROUNDS: u32 = 10;
/// Rounds from one move to the next (and after the last).
const ROUNDS_PER_MOVE: u32 = 10;
const MOVES_PER_OBJECT: u32 = PATH.len() as u32 - 1;
const ROUNDS: u32 = WARM_ROUNDS + MOVES_PER_OBJECT * ROUNDS_PER_MOVE;
/// Clock time per round: every round's frames (sends, relays, notifications)
/// are carried to quiescence, so a round is one network round trip.
const ROUND: Duration = Duration::from_millis(100);
/// With notifications on, at most this many detours per move per sender.
pub(super) const TARGET: f64 = 1.5;

/// What one run did.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Run {
    pub(super) messages_sent: u64,
    pub(super) delivered: u64,
    /// Operations that ended without delivery (a terminal result).
    pub(super) ended: u64,
    /// Operations with neither a delivery nor a terminal result.
    pub(super) lost: u64,
    /// Operations delivered more than once.
    pub(super) duplicated: u64,
    /// Operations both delivered and ended.
    pub(super) delivered_and_ended: u64,
    /// Same-path deliveries out of one sender's send order.
    pub(super) order_violations: u64,
    /// Frames still in flight after the last round.
    pub(super) in_flight: u64,
    pub(super) follow_relays: u64,
    pub(super) notifications_sent: u64,
    pub(super) notifications_suppressed: u64,
    /// Notifications the network dropped (all of them with notifications off).
    pub(super) notifications_dropped: u64,
    /// Notifications that invalidated a sender's cached route.
    pub(super) routes_refreshed: u64,
    /// Deliveries that took at least one Message Follow hop.
    pub(super) detours: u64,
    /// Moves × senders that sent to the moved object after the move.
    pub(super) move_senders: u64,
    /// Most detours one sender took after one move.
    pub(super) max_detours_one_sender_one_move: u64,
    /// Most Message Follow hops one delivery took.
    pub(super) longest_detour_hops: u8,
    /// Messages sent to an object after its first move.
    pub(super) sent_after_a_move: u64,
}

impl Run {
    /// Detours per move per sender: the cliff in one number.
    pub(super) fn detours_per_move_per_sender(&self) -> f64 {
        if self.move_senders == 0 {
            0.0
        } else {
            self.detours as f64 / self.move_senders as f64
        }
    }

    /// The `--json` keys of this run.
    pub(super) fn json(&self) -> Map<String, Value> {
        let mut map = Map::new();
        for (key, value) in [
            ("messages_sent", self.messages_sent),
            ("delivered", self.delivered),
            ("lost", self.lost),
            ("duplicated", self.duplicated),
            ("follow_relays", self.follow_relays),
            ("notifications_sent", self.notifications_sent),
            ("notifications_suppressed", self.notifications_suppressed),
        ] {
            map.insert(key.into(), json!(value));
        }
        map.insert(
            "detours_per_move_per_sender".into(),
            json!(self.detours_per_move_per_sender()),
        );
        map
    }

    /// The detailed `--json` object of this run, under `cliff`.
    fn detail_json(&self) -> Value {
        let mut map = self.json();
        for (key, value) in [
            ("ended", self.ended),
            ("notifications_dropped", self.notifications_dropped),
            ("routes_refreshed", self.routes_refreshed),
            ("detours", self.detours),
            ("move_senders", self.move_senders),
            (
                "max_detours_one_sender_one_move",
                self.max_detours_one_sender_one_move,
            ),
            ("longest_detour_hops", u64::from(self.longest_detour_hops)),
        ] {
            map.insert(key.into(), json!(value));
        }
        Value::Object(map)
    }
}

/// Both runs.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Cliff {
    pub(super) on: Run,
    pub(super) off: Run,
}

impl Cliff {
    /// The `cliff` object of the `--json` summary.
    pub(super) fn json(&self) -> Value {
        json!({
            "notifications_on": self.on.detail_json(),
            "notifications_off": self.off.detail_json(),
            "scenario": {
                "nodes": NODES,
                "senders": SENDERS.len(),
                "objects": OBJECTS.len(),
                "moves": OBJECTS.len() as u32 * MOVES_PER_OBJECT,
                "rounds": ROUNDS,
                "round_ms": ROUND.as_millis() as u64,
                "target_detours_per_move_per_sender": TARGET,
            },
        })
    }
}

/// `node-a` for NodeRid 1, and so on.
fn node_name(rid: u64) -> String {
    let letter = u8::try_from(rid - 1).map_or('?', |i| char::from(b'a' + i));
    format!("node-{letter}")
}

/// One run: `notices` false drops every command 50 notification in the
/// network, so senders keep their stale route until it expires.
pub(super) fn run(notices: bool) -> DemoResult<Run> {
    let mut m = Mesh::new(NODES, RoutingConfig::default())?;
    if !notices {
        m.drop_when(Some(Box::new(|e| e.carried == Carried::Notice)));
    }
    for id in OBJECTS {
        m.activate(PATH[0], KIND, id)?;
    }
    // Operation → (sender, object index, moves the object had made).
    let mut ops: BTreeMap<OperationId, (u64, usize, usize)> = BTreeMap::new();
    let mut moves = 0usize;
    for round in 0..ROUNDS {
        if round >= WARM_ROUNDS && (round - WARM_ROUNDS).is_multiple_of(ROUNDS_PER_MOVE) {
            let (from, to) = (PATH[moves], PATH[moves + 1]);
            for id in OBJECTS {
                m.relocate(KIND, id, from, to)?;
            }
            moves += 1;
        }
        for sender in SENDERS {
            for (object, id) in OBJECTS.iter().enumerate() {
                match m.send(sender, KIND, id, b"tick")? {
                    Sent::Submitted { operation_id, .. } => {
                        ops.insert(operation_id, (sender, object, moves));
                    }
                    other => {
                        return Err(Unexpected(format!(
                            "{} sending to actor {id}: {other:?}",
                            node_name(sender)
                        ))
                        .into());
                    }
                }
            }
        }
        m.run();
        m.clock.advance(ROUND);
    }

    let ledger = &m.ledger;
    // Detours by (object, move, sender); a move counts the senders that sent
    // to the object after it.
    let mut per_move_sender: BTreeMap<(usize, usize, u64), u64> = BTreeMap::new();
    let mut move_senders: BTreeSet<(usize, usize, u64)> = BTreeSet::new();
    for &(sender, object, moved) in ops.values() {
        if moved > 0 {
            move_senders.insert((object, moved, sender));
        }
    }
    let mut longest = 0;
    for (op, _, hops) in ledger.delivered.iter().filter(|(_, _, hops)| *hops > 0) {
        if let Some(&(sender, object, moved)) = ops.get(op) {
            *per_move_sender.entry((object, moved, sender)).or_default() += 1;
            longest = longest.max(*hops);
        }
    }
    let follow = (1..=NODES).map(|rid| m.node(rid).stats().follow);
    let (relays, sent, suppressed) = follow.fold((0, 0, 0), |(r, n, s), f| {
        (
            r + f.relays,
            n + f.notifications_sent,
            s + f.notifications_suppressed,
        )
    });
    Ok(Run {
        messages_sent: ledger.sent.len() as u64,
        delivered: ledger.delivered.len() as u64,
        ended: ledger.ended.len() as u64,
        lost: ledger.unresolved().len() as u64,
        duplicated: ledger.duplicated().len() as u64,
        delivered_and_ended: ledger.delivered_and_ended().len() as u64,
        order_violations: ledger.order_violations().len() as u64,
        in_flight: m.in_flight() as u64,
        follow_relays: relays,
        notifications_sent: sent,
        notifications_suppressed: suppressed,
        notifications_dropped: ledger
            .dropped
            .iter()
            .filter(|c| **c == Carried::Notice)
            .count() as u64,
        routes_refreshed: ledger.notices_effective,
        detours: ledger.detours() as u64,
        move_senders: move_senders.len() as u64,
        max_detours_one_sender_one_move: per_move_sender.values().copied().max().unwrap_or(0),
        longest_detour_hops: longest,
        sent_after_a_move: ops.values().filter(|(_, _, moved)| *moved > 0).count() as u64,
    })
}

/// The checks every run must pass: nothing lost, nothing run twice, one
/// terminal result each, order kept, and every message delivered.
pub(super) fn check(run: &Run, which: &str) -> DemoResult {
    ensure!(
        run.lost == 0 && run.in_flight == 0,
        "notifications {which}: {} operations lost, {} frames still in flight",
        run.lost,
        run.in_flight
    );
    ensure!(
        run.duplicated == 0,
        "notifications {which}: {} operations delivered twice",
        run.duplicated
    );
    ensure!(
        run.delivered_and_ended == 0,
        "notifications {which}: {} operations both delivered and ended",
        run.delivered_and_ended
    );
    ensure!(
        run.order_violations == 0,
        "notifications {which}: {} deliveries out of send order",
        run.order_violations
    );
    ensure!(
        run.delivered == run.messages_sent && run.ended == 0,
        "notifications {which}: {} of {} messages delivered, {} ended without delivery",
        run.delivered,
        run.messages_sent,
        run.ended
    );
    Ok(())
}

/// f. The cliff, measured with relay notifications on and off.
pub(super) fn scene(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("f. the performance cliff: moves under traffic, relay notifications on and off");
    let config = RoutingConfig::default();
    let span = ROUND * ROUNDS;
    ensure!(
        span < config.route_cache_max_age,
        "the runs must stay within one route cache lifetime"
    );
    let where_ = match cl.backend {
        Backend::Embedded => "",
        Backend::Redis { .. } => " (not Redis: the mesh harness is in-process by design)",
    };
    n.say(format_args!(
        "a separate in-process mesh of {NODES} nodes (node-a..node-{}) with its own manual clock and embedded store{where_}",
        char::from(b'a' + NODES as u8 - 1),
    ));
    let senders: Vec<String> = SENDERS.iter().map(|&s| node_name(s)).collect();
    let path: Vec<String> = PATH.iter().map(|&s| node_name(s)).collect();
    n.say(format_args!(
        "{} each send one message per round to actors {} (on {}); a round is one network round trip ({ROUND:?})",
        senders.join(", "),
        OBJECTS.join(", "),
        node_name(PATH[0]),
    ));
    n.say(format_args!(
        "after {WARM_ROUNDS} rounds every actor moves {}, one move every {ROUNDS_PER_MOVE} rounds: {} moves in {ROUNDS} rounds ({span:?}, inside the {:?} route cache life)",
        path.join(" -> "),
        OBJECTS.len() as u32 * MOVES_PER_OBJECT,
        config.route_cache_max_age,
    ));
    n.say("notifications off: the network drops every command 50 notification");

    let on = run(true)?;
    check(&on, "on")?;
    let off = run(false)?;
    check(&off, "off")?;

    let row = |label: &str, on: String, off: String| {
        n.say(format_args!("{label:<34}{on:>10}{off:>10}"));
    };
    let pair = |a: u64, b: u64| format!("{a}/{b}");
    row("", "on".into(), "off".into());
    row(
        "messages sent / delivered",
        pair(on.messages_sent, on.delivered),
        pair(off.messages_sent, off.delivered),
    );
    row(
        "lost / duplicated",
        pair(on.lost, on.duplicated),
        pair(off.lost, off.duplicated),
    );
    row(
        "follow relays",
        on.follow_relays.to_string(),
        off.follow_relays.to_string(),
    );
    row(
        "notifications sent / suppressed",
        pair(on.notifications_sent, on.notifications_suppressed),
        pair(off.notifications_sent, off.notifications_suppressed),
    );
    row(
        "detours per move per sender",
        format!("{:.2}", on.detours_per_move_per_sender()),
        format!("{:.2}", off.detours_per_move_per_sender()),
    );

    let rate = on.detours_per_move_per_sender();
    let on_target = rate <= TARGET;
    ensure!(
        on_target,
        "with notifications, {rate:.2} detours per move per sender (target <= {TARGET})"
    );
    ensure!(
        on.detours < off.detours,
        "notifications should cut detours: {} on, {} off",
        on.detours,
        off.detours
    );
    ensure!(
        off.detours == off.sent_after_a_move,
        "without notifications every message after a move should detour while the route is cached: {} of {}",
        off.detours,
        off.sent_after_a_move
    );
    n.say(format_args!(
        "on: at most {} {} per sender per move (target <= {TARGET}): {} notifications each refreshed a sender's cached route",
        on.max_detours_one_sender_one_move,
        if on.max_detours_one_sender_one_move == 1 {
            "detour"
        } else {
            "detours"
        },
        on.routes_refreshed,
    ));
    n.say(format_args!(
        "off: all {} messages sent after the first move detour, up to {} hops: the routes cached at t=0s live {:?}",
        off.sent_after_a_move,
        off.longest_detour_hops,
        config.route_cache_max_age,
    ));
    n.say(format_args!(
        "     (the relayers sent {} notifications, all dropped, and suppressed {} repeats as already sent)",
        off.notifications_sent, off.notifications_suppressed,
    ));
    cl.cliff
        .set(Cliff { on, off })
        .map_err(|_| Unexpected("the cliff scene ran twice".into()))?;
    Ok(())
}
