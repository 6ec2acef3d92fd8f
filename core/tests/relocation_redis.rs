//! The relocation handoff (§3.3) on a real `redis-server`: the owner CAS,
//! its refusal, an abort that reads nothing, and the store fence of a
//! source whose target went silent, with the system clock and real time.
//! Each test starts its own server.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use zlink_core::*;
use zlink_redis::{RedisOptions, RedisStore};
use zlink_testkit::{Deployment, FailoverDrill, RedisServer};

const ACTOR: ObjectKind = ObjectKind::Actor;

fn identity(rid: u64) -> NodeIdentity {
    NodeIdentity {
        mesh: MeshName::new("redis-moves").expect("valid"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(rid),
    }
}

/// Nodes 1..=n on one Redis.
fn nodes(server: &RedisServer, n: u64, config: &RoutingConfig) -> (Arc<RedisStore>, Vec<Runtime>) {
    nodes_at(&server.url(), RedisOptions::default(), n, config)
}

/// Nodes 1..=n on the Redis deployment `url` names.
fn nodes_at(
    url: &str,
    options: RedisOptions,
    n: u64,
    config: &RoutingConfig,
) -> (Arc<RedisStore>, Vec<Runtime>) {
    let store = Arc::new(RedisStore::open_with(url, options).expect("connects"));
    let nodes = (1..=n)
        .map(|rid| {
            Runtime::builder(identity(rid))
                .config(config.clone())
                .store(store.clone())
                .build()
                .expect("valid runtime")
        })
        .collect();
    (store, nodes)
}

/// What the carried frames did.
#[derive(Default)]
struct Seen {
    /// (operation, node) per delivery, in order.
    delivered: Vec<(OperationId, NodeRid)>,
    /// Operations of the senders that ended without delivery.
    ended: Vec<(OperationId, Failure)>,
    /// Requests' terminal results.
    completed: Vec<(OperationId, &'static str)>,
    events: Vec<(NodeRid, RelocationEvent)>,
}

/// Carries every frame among `nodes` until quiet, answering requests and
/// restoring at once; frames `hold` says yes to are kept back, returned.
/// Quiet means no frame left and no node's work due soon (a store step in
/// flight on the store's I/O, such as the owner CAS, answers a few
/// milliseconds later: `next_deadline` asks every 10 ms meanwhile).
fn carry(
    nodes: &[Runtime],
    queue: &mut VecDeque<(NodeRid, Outbound)>,
    seen: &mut Seen,
    hold: impl Fn(&Outbound) -> bool,
) -> Vec<(NodeRid, Outbound)> {
    let mut held = Vec::new();
    loop {
        while let Some((from, out)) = queue.pop_front() {
            if hold(&out) {
                held.push((from, out));
                continue;
            }
            let at = &nodes[(out.to.rid.get() - 1) as usize];
            let action = at.on_frame(from, &out.bytes);
            act(at, action, queue, seen);
            due(at, queue, seen);
        }
        if !settle(nodes, queue, seen) {
            return held;
        }
    }
}

/// What a host's timer loop does while some node's work is due within
/// 20 ms: waits a moment and runs what is due. False when nothing is.
fn settle(nodes: &[Runtime], queue: &mut VecDeque<(NodeRid, Outbound)>, seen: &mut Seen) -> bool {
    let soon = |n: &Runtime| {
        n.next_deadline()
            .is_some_and(|d| d <= n.now().after(Duration::from_millis(20)))
    };
    if !nodes.iter().any(soon) {
        return false;
    }
    std::thread::sleep(Duration::from_millis(1));
    for at in nodes {
        due(at, queue, seen);
    }
    true
}

fn act(at: &Runtime, action: Inbound, queue: &mut VecDeque<(NodeRid, Outbound)>, seen: &mut Seen) {
    let here = at.identity().rid;
    let mut deliver = |d: Delivery, queue: &mut VecDeque<(NodeRid, Outbound)>| {
        seen.delivered.push((d.operation.operation_id, here));
        if d.operation.reply_route.is_some() {
            let reply = at
                .reply(&d.operation, wire::ReplyResult::Ok(b"ok".to_vec()))
                .expect("a request");
            queue.push_back((here, reply));
        }
    };
    match action {
        Inbound::Deliver(d) => deliver(d, queue),
        Inbound::Relay { forward, notice } => {
            queue.push_back((here, forward));
            if let Some(n) = notice {
                queue.push_back((here, n.outbound.clone()));
                at.notice_settled(&n.token, true);
            }
        }
        Inbound::Reject(out) => queue.push_back((here, out)),
        Inbound::Send(frames) => queue.extend(frames.into_iter().map(|f| (here, f))),
        Inbound::Ended(e) => seen.ended.push((e.operation_id, e.failure)),
        Inbound::Completed(c) => seen.completed.push((c.operation_id, c.outcome.kind())),
        Inbound::Relocation(a) => {
            for d in a.deliver {
                deliver(d, queue);
            }
            queue.extend(a.send.into_iter().map(|f| (here, f)));
            if let RelocationEvent::Restore { identity, .. } = &a.event {
                let key = &identity.key;
                let ready = at
                    .relocation_restored(key.kind(), key.id())
                    .expect("restored");
                queue.extend(ready.into_iter().map(|f| (here, f)));
            }
            seen.events.push((here, a.event));
        }
        _ => {}
    }
}

/// What a host does after every frame: runs the work a frame made due now
/// (the owner CAS after a cutover).
fn due(at: &Runtime, queue: &mut VecDeque<(NodeRid, Outbound)>, seen: &mut Seen) {
    if at.next_deadline().is_some_and(|d| d <= at.now()) {
        for action in at.on_timeout(at.now()) {
            act(at, action, queue, seen);
        }
    }
}

fn send(rt: &Runtime, id: &str, queue: &mut VecDeque<(NodeRid, Outbound)>) -> OperationId {
    match rt
        .send(ACTOR, id, b"m", SendOptions::default())
        .expect("valid")
    {
        Sent::Submitted {
            operation_id,
            outbound,
        } => {
            queue.push_back((rt.identity().rid, outbound));
            operation_id
        }
        other => panic!("not submitted: {other:?}"),
    }
}

fn request(rt: &Runtime, id: &str, queue: &mut VecDeque<(NodeRid, Outbound)>) -> OperationId {
    match rt
        .request(ACTOR, id, b"q", RequestOptions::default())
        .expect("valid")
    {
        Requested::Submitted {
            operation_id,
            outbound,
            ..
        } => {
            queue.push_back((rt.identity().rid, outbound));
            operation_id
        }
        other => panic!("not submitted: {other:?}"),
    }
}

fn begin(nodes: &[Runtime], id: &str, from: usize, to: usize) -> Vec<(NodeRid, Outbound)> {
    let started = nodes[from - 1]
        .begin_relocation(ACTOR, id, nodes[to - 1].node_ref(), Capture::default())
        .expect("owned");
    let rid = nodes[from - 1].identity().rid;
    started.send.into_iter().map(|f| (rid, f)).collect()
}

fn command(out: &Outbound) -> u8 {
    out.bytes[3]
}

fn fire(nodes: &[Runtime], queue: &mut VecDeque<(NodeRid, Outbound)>, seen: &mut Seen) {
    for rt in nodes {
        for action in rt.on_timeout(rt.now()) {
            act(rt, action, queue, seen);
        }
    }
}

#[test]
fn a_move_under_traffic_on_redis_runs_every_operation_once_on_one_owner() {
    let server = RedisServer::start().expect("redis-server starts");
    let (_store, nodes) = nodes(&server, 3, &RoutingConfig::default());
    nodes[0].activate(ACTOR, "cart").expect("activated");
    let mut queue = VecDeque::new();
    let mut seen = Seen::default();
    let mut sent = Vec::new();
    for _ in 0..20 {
        sent.push(send(&nodes[2], "cart", &mut queue));
        sent.push(request(&nodes[2], "cart", &mut queue));
    }
    carry(&nodes, &mut queue, &mut seen, |_| false);
    let before = seen.delivered.len();
    let started = Instant::now();
    queue.extend(begin(&nodes, "cart", 1, 2));
    for _ in 0..20 {
        sent.push(send(&nodes[2], "cart", &mut queue));
        sent.push(request(&nodes[2], "cart", &mut queue));
    }
    let mut first_on_target = None;
    let on_target = |seen: &Seen| seen.delivered.iter().any(|(_, n)| *n == NodeRid(2));
    loop {
        while let Some((from, out)) = queue.pop_front() {
            let at = &nodes[(out.to.rid.get() - 1) as usize];
            let action = at.on_frame(from, &out.bytes);
            act(at, action, &mut queue, &mut seen);
            due(at, &mut queue, &mut seen);
            if first_on_target.is_none() && on_target(&seen) {
                first_on_target = Some(started.elapsed());
            }
        }
        if !settle(&nodes, &mut queue, &mut seen) {
            break;
        }
        if first_on_target.is_none() && on_target(&seen) {
            first_on_target = Some(started.elapsed());
        }
    }
    let took = first_on_target.expect("the target delivered");
    eprintln!("redis: begin_relocation to the target's first delivery: {took:?}");
    assert!(
        seen.delivered[before..]
            .iter()
            .all(|(_, at)| *at == NodeRid(2)),
        "nothing ran on the source after its seal"
    );
    let mut ids: Vec<_> = seen.delivered.iter().map(|(op, _)| *op).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), seen.delivered.len(), "nothing ran twice");
    assert_eq!(seen.delivered.len(), sent.len(), "nothing lost");
    assert_eq!(seen.completed.len(), 40);
    assert!(seen.completed.iter().all(|(_, k)| *k == "Reply"));
    assert!(
        nodes[1]
            .owned(KeyRef {
                kind: ACTOR,
                id: "cart"
            })
            .is_some()
    );
    assert!(
        nodes[0]
            .owned(KeyRef {
                kind: ACTOR,
                id: "cart"
            })
            .is_none()
    );
}

#[test]
fn an_owner_cas_on_a_paused_redis_never_holds_up_the_hosts_on_timeout() {
    // Issue 28: the cutover's owner CAS runs on the store's I/O. With the
    // server paused, the target host's `on_timeout` returns at once (a host
    // calling it on its event loop is not blocked); once the server is
    // back, a later `on_timeout` commits the move.
    let server = RedisServer::start().expect("redis-server starts");
    let (_store, nodes) = nodes(&server, 3, &RoutingConfig::default());
    nodes[0].activate(ACTOR, "cart").expect("activated");
    let mut queue = VecDeque::new();
    let mut seen = Seen::default();
    queue.extend(begin(&nodes, "cart", 1, 2));
    let cutover = carry(&nodes, &mut queue, &mut seen, |o| command(o) == 47);
    sent_while_moving(&nodes, &mut queue, &mut seen);
    server.pause().expect("pause the server");
    let target = &nodes[1];
    for (from, out) in cutover {
        let action = target.on_frame(from, &out.bytes);
        assert!(
            matches!(&action, Inbound::Relocation(a) if matches!(a.event, RelocationEvent::CommitDue { .. })),
            "{action:?}"
        );
    }
    let started = Instant::now();
    let first = target.on_timeout(target.now());
    let took = started.elapsed();
    assert!(first.is_empty(), "nothing decided yet: {first:?}");
    eprintln!("on_timeout with the owner CAS on a paused server returned in {took:?}");
    assert!(
        target
            .next_deadline()
            .is_some_and(|d| d <= target.now().after(Duration::from_millis(10))),
        "the host is asked back while the CAS is in flight"
    );
    std::thread::sleep(Duration::from_millis(300));
    server.resume().expect("resume the server");
    carry(&nodes, &mut queue, &mut seen, |_| false);
    assert!(
        seen.events
            .iter()
            .any(|(at, e)| *at == NodeRid(2) && matches!(e, RelocationEvent::Committed { .. })),
        "{:?}",
        seen.events
    );
    let key = KeyRef {
        kind: ACTOR,
        id: "cart",
    };
    assert!(nodes[1].owned(key).is_some() && nodes[0].owned(key).is_none());
    assert_eq!(seen.delivered.len(), 3, "what was sent during the move");
}

/// Three messages from node 3 while the object moves, carried up to where
/// they wait.
fn sent_while_moving(
    nodes: &[Runtime],
    queue: &mut VecDeque<(NodeRid, Outbound)>,
    seen: &mut Seen,
) {
    for _ in 0..3 {
        send(&nodes[2], "cart", queue);
    }
    carry(nodes, queue, seen, |_| false);
}

#[test]
fn a_refused_owner_cas_on_redis_ends_the_held_work_unavailable() {
    let server = RedisServer::start().expect("redis-server starts");
    let (store, nodes) = nodes(&server, 4, &RoutingConfig::default());
    let owned = nodes[0].activate(ACTOR, "cart").expect("activated");
    let mut queue = VecDeque::new();
    let mut seen = Seen::default();
    send(&nodes[2], "cart", &mut queue);
    carry(&nodes, &mut queue, &mut seen, |_| false);
    queue.extend(begin(&nodes, "cart", 1, 2));
    let cutover = carry(&nodes, &mut queue, &mut seen, |o| command(o) == 47);
    for _ in 0..3 {
        send(&nodes[2], "cart", &mut queue);
    }
    carry(&nodes, &mut queue, &mut seen, |_| false);
    // Node 4 takes the object in Redis behind the target's back.
    let me = identity(4);
    let claim = OwnerClaim {
        mesh: me.mesh,
        node: me.rid,
        node_generation: me.generation,
        lease_generation: me.lease,
        lease_millis: 30_000,
    };
    let exec = store.executor().expect("the redis store runs its own I/O");
    exec.block_on(store.transfer_owner(
        KeyRef {
            kind: ACTOR,
            id: "cart",
        },
        owned.write_fence(),
        claim,
        ProposalId(99),
    ))
    .expect("the store takes the transfer");
    queue.extend(cutover);
    carry(&nodes, &mut queue, &mut seen, |_| false);
    assert_eq!(seen.delivered.len(), 1, "only the one before the move");
    assert_eq!(seen.ended.len(), 3);
    assert!(
        seen.ended
            .iter()
            .all(|(_, f)| *f == Failure::Unavailable(UnavailableReason::RelocationFailed))
    );
    assert!(seen.events.iter().any(|(at, e)| *at == NodeRid(2)
        && matches!(
            e,
            RelocationEvent::Failed {
                reason: AbortReason::CommitFailed,
                ..
            }
        )));
}

#[test]
fn an_abort_before_relay_ready_on_redis_unseals_without_reading_the_store() {
    let server = RedisServer::start().expect("redis-server starts");
    let (_store, nodes) = nodes(&server, 3, &RoutingConfig::default());
    nodes[0].activate(ACTOR, "cart").expect("activated");
    let mut queue = VecDeque::new();
    let mut seen = Seen::default();
    let restore = begin(&nodes, "cart", 1, 2);
    for _ in 0..4 {
        send(&nodes[2], "cart", &mut queue);
    }
    carry(&nodes, &mut queue, &mut seen, |_| false);
    assert!(seen.delivered.is_empty(), "sealed");
    let reads = nodes[0].stats().store_reads;
    let aborting = nodes[0].abort_relocation(ACTOR, "cart").expect("sealed");
    let rid = nodes[0].identity().rid;
    queue.extend(aborting.send.into_iter().map(|f| (rid, f)));
    carry(&nodes, &mut queue, &mut seen, |_| false);
    assert_eq!(seen.delivered.len(), 4);
    assert!(seen.delivered.iter().all(|(_, at)| *at == NodeRid(1)));
    assert_eq!(nodes[0].stats().store_reads, reads, "no store read");
    // The late Restore is refused: the target never commits.
    queue.extend(restore);
    carry(&nodes, &mut queue, &mut seen, |_| false);
    assert!(
        nodes[1]
            .owned(KeyRef {
                kind: ACTOR,
                id: "cart"
            })
            .is_none()
    );
    assert!(
        nodes[0]
            .owned(KeyRef {
                kind: ACTOR,
                id: "cart"
            })
            .is_some()
    );
}

#[test]
fn a_source_whose_target_went_silent_fences_redis_before_it_unseals() {
    let server = RedisServer::start().expect("redis-server starts");
    let config = RoutingConfig {
        relocation_timeout: Duration::from_millis(200),
        ..RoutingConfig::default()
    };
    let (_store, nodes) = nodes(&server, 3, &config);
    let before = nodes[0].activate(ACTOR, "cart").expect("activated");
    let mut queue = VecDeque::new();
    let mut seen = Seen::default();
    // The target never gets the Restore, nor anything after.
    let _lost = begin(&nodes, "cart", 1, 2);
    send(&nodes[2], "cart", &mut queue);
    carry(&nodes, &mut queue, &mut seen, |_| false);
    let silent = |o: &Outbound| o.to.rid == NodeRid(2);
    let deadline = Instant::now() + Duration::from_secs(5);
    while seen.delivered.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        fire(&nodes, &mut queue, &mut seen);
        carry(&nodes, &mut queue, &mut seen, silent);
    }
    assert_eq!(seen.delivered, [(seen.delivered[0].0, NodeRid(1))]);
    let after = nodes[0]
        .owned(KeyRef {
            kind: ACTOR,
            id: "cart",
        })
        .expect("the source owns it again");
    assert_eq!(
        after.authority_owner_generation,
        before.authority_owner_generation.next(),
        "its own authority, re-taken in Redis"
    );
    assert!(seen.events.iter().any(|(_, e)| matches!(
        e,
        RelocationEvent::Aborted {
            reason: AbortReason::Timeout,
            ..
        }
    )));
}

#[test]
fn on_sentinel_a_move_whose_owner_cas_a_failover_lost_ends_with_one_owner_and_every_operation_once()
{
    a_move_whose_owner_cas_a_failover_lost_still_ends_with_one_owner_and_every_operation_once(
        Deployment::Sentinel,
    );
}

#[test]
fn on_a_cluster_a_move_whose_owner_cas_a_failover_lost_ends_with_one_owner_and_every_operation_once()
 {
    a_move_whose_owner_cas_a_failover_lost_still_ends_with_one_owner_and_every_operation_once(
        Deployment::Cluster,
    );
}

/// Issue 27: the target's owner CAS reaches no replica (its outcome is
/// unknown: the target does not act on it), the primary dies and the stale
/// replica is promoted, so the store names the source again. The move goes
/// on across the failover; traffic keeps coming. Whatever the move ends as,
/// one node owns the object, the one the store names, and no operation runs
/// twice or on a node that was not its owner.
fn a_move_whose_owner_cas_a_failover_lost_still_ends_with_one_owner_and_every_operation_once(
    deployment: Deployment,
) {
    let drill = FailoverDrill::start(deployment, "zlink:{actor:cart}").expect("a deployment");
    let options = RedisOptions {
        connect_timeout: Duration::from_millis(500),
        response_timeout: Duration::from_millis(1000),
        epoch_check_interval: Duration::from_millis(200),
        write_ack_timeout: Duration::from_millis(300),
        ..RedisOptions::default()
    };
    let (store, nodes) = nodes_at(&drill.url(), options, 3, &RoutingConfig::default());
    nodes[0].activate(ACTOR, "cart").expect("activated");
    let mut queue = VecDeque::new();
    let mut seen = Seen::default();
    let mut sent = Vec::new();
    for _ in 0..5 {
        sent.push(send(&nodes[2], "cart", &mut queue));
    }
    carry(&nodes, &mut queue, &mut seen, |_| false);
    drill.cut_off().expect("cut the replica off");
    queue.extend(begin(&nodes, "cart", 1, 2));
    for _ in 0..5 {
        sent.push(send(&nodes[2], "cart", &mut queue));
    }
    // The cutover makes the target's CAS due: it is not acknowledged.
    carry(&nodes, &mut queue, &mut seen, |_| false);
    fire(&nodes, &mut queue, &mut seen);
    carry(&nodes, &mut queue, &mut seen, |_| false);
    drill.fail_over().expect("a failover to the replica");
    // Hosts keep running: timers fire, frames are carried, more traffic.
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        fire(&nodes, &mut queue, &mut seen);
        carry(&nodes, &mut queue, &mut seen, |_| false);
        let ended = seen.events.iter().any(|(_, e)| {
            matches!(
                e,
                RelocationEvent::Committed { .. }
                    | RelocationEvent::Aborted { .. }
                    | RelocationEvent::Failed { .. }
            )
        });
        if ended
            && nodes.iter().all(|n| {
                n.next_deadline()
                    .is_none_or(|d| d > n.now().after(Duration::from_millis(500)))
            })
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let key = KeyRef {
        kind: ACTOR,
        id: "cart",
    };
    let owners: Vec<NodeRid> = nodes
        .iter()
        .filter(|n| n.owned(key).is_some())
        .map(|n| n.identity().rid)
        .collect();
    assert_eq!(
        owners.len(),
        1,
        "one owner: {owners:?}; events {:?}",
        seen.events
    );
    let events: Vec<String> = seen
        .events
        .iter()
        .map(|(n, e)| {
            let shown = format!("{e:?}");
            let variant = shown.split([' ', '{', '(']).next().unwrap_or_default();
            format!("{n}:{variant}")
        })
        .collect();
    eprintln!(
        "the move across the failover: owner node {}, {} delivered, {} ended, {events:?}",
        owners[0],
        seen.delivered.len(),
        seen.ended.len(),
    );
    // What the store says, not node 3's cached route.
    nodes[2].on_store_recovery();
    let record = loop {
        match nodes[2].resolve(ACTOR, "cart").expect("valid") {
            Resolution::ReadyRoute(route) => break route,
            Resolution::StoreFailure(_) if started.elapsed() < Duration::from_secs(40) => {
                std::thread::sleep(Duration::from_millis(100))
            }
            other => panic!("after the failover: {other:?}"),
        }
    };
    assert_eq!(
        record.route.node, owners[0],
        "the store names the one owner"
    );
    let mut ids: Vec<_> = seen.delivered.iter().map(|(op, _)| *op).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), seen.delivered.len(), "nothing ran twice");
    let accounted = seen.delivered.len() + seen.ended.len();
    assert_eq!(
        accounted,
        sent.len(),
        "every operation delivered or ended once"
    );
    drop(store);
}
