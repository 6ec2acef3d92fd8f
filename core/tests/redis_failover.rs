//! Failover on real Redis processes (issue 27; docs/location-store.md,
//! "Failover and durability"): a primary that dies before its replica has
//! an authority write loses the write. With durable writes (the default,
//! `WriteAcks::AllReplicas`) the writer never acted on such a write, so one
//! owner remains; with `PrimaryOnly` the same failover makes the store name
//! a second owner, and the first gives the object up once its store sees
//! the new epoch (owners re-confirm their records after a recovery event).
//! Each test starts its own servers; each is bounded (≤ 60 s).

use std::time::{Duration, Instant};

use zlink_core::store::WriteError;
use zlink_core::*;
use zlink_redis::{RedisOptions, RedisStore, WriteAcks};
use zlink_testkit::{Deployment, FailoverDrill, RedisSentinels, RedisServer};

const ACTOR: ObjectKind = ObjectKind::Actor;

/// How long after the primary's death the tests allow for the objects to
/// be usable again: the Sentinels' failover (~2–4 s here) plus the store's
/// next look at them (`epoch_check_interval`).
const USABLE_AGAIN: Duration = Duration::from_secs(20);

fn identity(rid: u64) -> NodeIdentity {
    NodeIdentity {
        mesh: MeshName::new("failover").expect("valid"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(rid),
    }
}

fn options(acks: WriteAcks) -> RedisOptions {
    RedisOptions {
        connect_timeout: Duration::from_millis(500),
        response_timeout: Duration::from_millis(1000),
        epoch_check_interval: Duration::from_millis(200),
        write_acks: acks,
        write_ack_timeout: Duration::from_millis(300),
        ..RedisOptions::default()
    }
}

/// Node `rid` with a store connection of its own, as each process has.
fn node(url: &str, rid: u64, acks: WriteAcks) -> Runtime {
    let store = RedisStore::open_with(url, options(acks)).expect("connects");
    Runtime::builder(identity(rid))
        .store(std::sync::Arc::new(store))
        .build()
        .expect("valid runtime")
}

fn key(id: &str) -> KeyRef<'_> {
    KeyRef { kind: ACTOR, id }
}

/// Sends one message to actor `id` from `sender`; the frame, not yet carried.
fn send(sender: &Runtime, id: &str) -> Outbound {
    match sender
        .send(ACTOR, id, b"m", SendOptions::default())
        .expect("valid")
    {
        Sent::Submitted { outbound, .. } => outbound,
        other => panic!("no route to {id}: {other:?}"),
    }
}

fn delivered(inbound: &Inbound) -> bool {
    matches!(inbound, Inbound::Deliver(_))
}

/// Whether `rt` delivers the frame `bytes` from `from`: at once, or once
/// its held work is released by `on_timeout` (a node whose own write was
/// answered across the failover re-checks that record before it admits).
fn delivers(rt: &Runtime, from: NodeRid, bytes: &[u8]) -> bool {
    match rt.on_frame(from, bytes) {
        Inbound::Held => {}
        other => return delivered(&other),
    }
    let give_up = Instant::now() + Duration::from_secs(10);
    while Instant::now() < give_up {
        if rt.next_deadline().is_some_and(|t| t <= rt.now()) {
            let actions = rt.on_timeout(rt.now());
            if !actions.is_empty() {
                return actions.iter().any(delivered);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// The write's outcome is unknown: the replicas did not acknowledge it.
fn not_replicated(result: &Result<OwnedObject, LifecycleError>) -> bool {
    matches!(
        result,
        Err(LifecycleError::Write(WriteError::Store(
            StoreError::NotReplicated { .. }
        )))
    )
}

/// Starts `deployment` with object `x`'s primary ready to fail over.
fn drill(deployment: Deployment) -> FailoverDrill {
    FailoverDrill::start(deployment, "zlink:{actor:x}").expect("a deployment with replicas")
}

/// Cuts `x`'s replica off: what the primary writes next stays on it.
fn cut_off(at: &FailoverDrill) {
    at.cut_off().expect("cut the replica off");
}

/// Kills `x`'s primary and waits until its stale replica is promoted;
/// returns when the primary died.
fn fail_over(at: &FailoverDrill) -> Instant {
    at.fail_over().expect("a failover to the replica")
}

/// Activates `id` on `node`, retrying while its store still follows the
/// failover (the dead primary is unreachable until then).
fn activate_once_usable(node: &Runtime, id: &str, since: Instant) -> OwnedObject {
    loop {
        match node.activate(ACTOR, id) {
            Ok(owned) => return owned,
            Err(e) if since.elapsed() < USABLE_AGAIN => {
                eprintln!("not yet usable after {:?}: {e}", since.elapsed());
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("{id} not usable {USABLE_AGAIN:?} after the failover: {e}"),
        }
    }
}

/// Waits (while the store follows the failover that began at `died`) until
/// `b` resolves `x` and checks it finds node 1's tenure `owned`: the
/// failover kept the write.
fn kept_after_failover(b: &Runtime, owned: &OwnedObject, died: Instant) {
    loop {
        match b.resolve(ACTOR, "x").expect("valid") {
            Resolution::ReadyRoute(route) => {
                assert_eq!(route.route.node, NodeRid(1));
                assert_eq!(route.fence.object_generation, owned.object_generation);
                return;
            }
            Resolution::StoreFailure(e) if died.elapsed() < USABLE_AGAIN => {
                eprintln!("not yet usable after {:?}: {e}", died.elapsed());
                std::thread::sleep(Duration::from_millis(100));
            }
            other => panic!("after the failover: {other:?}"),
        }
    }
}

/// The scenario of issue 27 with durable writes: A's activation reaches
/// no replica, so A never acts on it; after the failover lost it, B owns
/// the object alone.
fn a_write_no_replica_acknowledged_is_never_acted_on(deployment: Deployment) {
    let at = drill(deployment);
    let url = at.url();
    let (a, b, d) = (
        node(&url, 1, WriteAcks::AllReplicas),
        node(&url, 2, WriteAcks::AllReplicas),
        node(&url, 4, WriteAcks::AllReplicas),
    );
    cut_off(&at);
    let started = Instant::now();
    let first = a.activate(ACTOR, "x");
    assert!(not_replicated(&first), "{first:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "unknown in bounded time: {:?}",
        started.elapsed()
    );
    assert_eq!(a.owned(key("x")), None, "the writer does not act as owner");
    // The primary holds the unacknowledged Creating record: nobody gets a
    // route from it.
    assert!(matches!(
        d.send(ACTOR, "x", b"m", SendOptions::default()),
        Ok(Sent::Unavailable(UnavailableReason::Creating))
    ));

    let died = fail_over(&at);
    let owned = activate_once_usable(&b, "x", died);
    eprintln!("usable again {:?} after the primary died", died.elapsed());
    assert_eq!(owned.state, AuthorityState::Ready);
    let to_b = send(&d, "x");
    assert_eq!(to_b.to.rid, NodeRid(2));
    assert!(delivers(&b, NodeRid(4), &to_b.bytes));
    // A never owned it: a frame for x that reaches it is not delivered.
    assert_eq!(a.owned(key("x")), None);
    assert!(!delivered(&a.on_frame(NodeRid(4), &to_b.bytes)));
}

/// The hazard durable writes close: the primary acknowledges A's
/// activation alone, dies, and the stale replica it failed over to has no
/// record, so B activates the same object. A, which acted on the lost
/// write, fences itself once its store sees the new epoch: the frame in
/// flight to it is held, then refused, and A is told `OwnershipLost`. (A
/// frame reaching A before its store saw the failover would still be
/// delivered: docs/location-store.md, "Failover and durability".)
fn with_durability_off_the_failover_loses_a_write_and_its_owner_gives_up(deployment: Deployment) {
    let at = drill(deployment);
    let url = at.url();
    let off = WriteAcks::PrimaryOnly;
    let (a, b, d) = (node(&url, 1, off), node(&url, 2, off), node(&url, 4, off));
    cut_off(&at);
    a.activate(ACTOR, "x")
        .expect("acknowledged by the primary alone");
    let in_flight = send(&d, "x");
    assert_eq!(in_flight.to.rid, NodeRid(1));

    let died = fail_over(&at);
    activate_once_usable(&b, "x", died);
    let fresh = node(&url, 5, off);
    let to_b = send(&fresh, "x");
    assert_eq!(to_b.to.rid, NodeRid(2));
    assert!(delivers(&b, NodeRid(5), &to_b.bytes));
    // Two owners on the store's word: A still believes it owns x.
    assert!(a.owned(key("x")).is_some());
    // A's store follows the failover within an epoch check or two.
    std::thread::sleep(Duration::from_millis(600));
    let first = a.on_frame(NodeRid(4), &in_flight.bytes);
    assert!(matches!(first, Inbound::Held), "{first:?}");
    let give_up = Instant::now() + Duration::from_secs(10);
    let mut actions = Vec::new();
    while !actions
        .iter()
        .any(|a| matches!(a, Inbound::OwnershipLost(_)))
    {
        assert!(Instant::now() < give_up, "A never gave x up: {actions:?}");
        if a.next_deadline().is_some_and(|t| t <= a.now()) {
            actions.extend(a.on_timeout(a.now()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(!actions.iter().any(|a| matches!(a, Inbound::Deliver(_))));
    assert!(
        actions.iter().any(|a| matches!(a, Inbound::Reject(_))),
        "{actions:?}"
    );
    assert_eq!(a.owned(key("x")), None);
}

#[test]
fn on_sentinel_a_write_no_replica_acknowledged_is_never_acted_on_so_one_owner_remains() {
    a_write_no_replica_acknowledged_is_never_acted_on(Deployment::Sentinel);
}

#[test]
fn on_sentinel_with_durability_off_the_failover_loses_a_write_and_its_owner_gives_up() {
    with_durability_off_the_failover_loses_a_write_and_its_owner_gives_up(Deployment::Sentinel);
}

#[test]
fn on_a_cluster_a_write_no_replica_acknowledged_is_never_acted_on_so_one_owner_remains() {
    a_write_no_replica_acknowledged_is_never_acted_on(Deployment::Cluster);
}

#[test]
fn on_a_cluster_with_durability_off_the_failover_loses_a_write_and_its_owner_gives_up() {
    with_durability_off_the_failover_loses_a_write_and_its_owner_gives_up(Deployment::Cluster);
}

#[test]
fn on_sentinel_a_write_the_replica_acknowledged_survives_the_failover() {
    let at = drill(Deployment::Sentinel);
    let url = at.url();
    let (a, b) = (
        node(&url, 1, WriteAcks::AllReplicas),
        node(&url, 2, WriteAcks::AllReplicas),
    );
    let owned = a.activate(ACTOR, "x").expect("durable activation");
    let died = fail_over(&at);
    // The promoted replica has A's record: B finds A, not Missing.
    kept_after_failover(&b, &owned, died);
    let refused = b.activate(ACTOR, "x");
    assert!(
        matches!(
            refused,
            Err(LifecycleError::Write(WriteError::Rejected(
                store::WriteRejection::AlreadyExists { .. }
            )))
        ),
        "{refused:?}"
    );
}

/// A release in two steps; the replica misses the second. Its writer does
/// not act on it (A still holds x, Releasing), the failover brings the
/// Releasing record back, so no node may take x until A completes the
/// release again on the new primary.
fn a_release_the_failover_lost_leaves_the_object_releasing_not_missing(deployment: Deployment) {
    let at = drill(deployment);
    let url = at.url();
    let (a, b) = (
        node(&url, 1, WriteAcks::AllReplicas),
        node(&url, 2, WriteAcks::AllReplicas),
    );
    a.activate(ACTOR, "x").expect("durable activation");
    a.begin_release(ACTOR, "x").expect("durable begin_release");
    cut_off(&at);
    let lost = a.complete_release(ACTOR, "x");
    assert!(
        matches!(
            lost,
            Err(LifecycleError::Write(WriteError::Store(
                StoreError::NotReplicated { .. }
            )))
        ),
        "{lost:?}"
    );
    assert!(a.owned(key("x")).is_some(), "not acted on: A still holds x");
    let died = fail_over(&at);
    loop {
        match b.resolve(ACTOR, "x").expect("valid") {
            Resolution::Unavailable(UnavailableReason::Releasing) => break,
            Resolution::StoreFailure(_) if died.elapsed() < USABLE_AGAIN => {
                std::thread::sleep(Duration::from_millis(100))
            }
            other => panic!("after the failover: {other:?}"),
        }
    }
    assert!(b.activate(ACTOR, "x").is_err(), "x is still being released");
    a.complete_release(ACTOR, "x")
        .expect("the release completes on the new primary");
    activate_once_usable(&b, "x", died);
}

/// A's activation waits in WAIT (its replica stopped) when the primary
/// dies; the stale replica is promoted. Whatever A's retries then do on the
/// new primary, exactly one node owns x, and only it delivers.
fn a_primary_killed_while_a_writer_waits_for_its_replica_leaves_one_owner(deployment: Deployment) {
    let at = drill(deployment);
    let url = at.url();
    let (a, b, d) = (
        node(&url, 1, WriteAcks::AllReplicas),
        node(&url, 2, WriteAcks::AllReplicas),
        node(&url, 4, WriteAcks::AllReplicas),
    );
    cut_off(&at);
    let died = std::thread::scope(|s| {
        let waiting = s.spawn(|| a.activate(ACTOR, "x"));
        std::thread::sleep(Duration::from_millis(100)); // A is in its WAIT now
        let died = fail_over(&at);
        let outcome = waiting.join().expect("the activation ends");
        eprintln!("A's activation across the failover: {outcome:?}");
        died
    });
    // B takes x unless A's retry already did, on the new primary.
    let b_owns = loop {
        match b.activate(ACTOR, "x") {
            Ok(_) => break true,
            Err(LifecycleError::Write(WriteError::Rejected(
                store::WriteRejection::AlreadyExists { .. },
            ))) => break false,
            Err(e) if died.elapsed() < USABLE_AGAIN => {
                eprintln!("not yet usable after {:?}: {e}", died.elapsed());
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("x not usable after the failover: {e}"),
        }
    };
    let (owner, other, owner_rid) = if b_owns {
        (&b, &a, NodeRid(2))
    } else {
        (&a, &b, NodeRid(1))
    };
    assert!(owner.owned(key("x")).is_some());
    assert_eq!(other.owned(key("x")), None, "one owner");
    let frame = send(&d, "x");
    assert_eq!(frame.to.rid, owner_rid);
    assert!(delivers(owner, NodeRid(4), &frame.bytes));
    assert!(!delivered(&other.on_frame(NodeRid(4), &frame.bytes)));
}

#[test]
fn on_sentinel_a_release_the_failover_lost_leaves_the_object_releasing_not_missing() {
    a_release_the_failover_lost_leaves_the_object_releasing_not_missing(Deployment::Sentinel);
}

#[test]
fn on_a_cluster_a_release_the_failover_lost_leaves_the_object_releasing_not_missing() {
    a_release_the_failover_lost_leaves_the_object_releasing_not_missing(Deployment::Cluster);
}

#[test]
fn on_sentinel_a_primary_killed_while_a_writer_waits_for_its_replica_leaves_one_owner() {
    a_primary_killed_while_a_writer_waits_for_its_replica_leaves_one_owner(Deployment::Sentinel);
}

#[test]
fn on_a_cluster_a_primary_killed_while_a_writer_waits_for_its_replica_leaves_one_owner() {
    a_primary_killed_while_a_writer_waits_for_its_replica_leaves_one_owner(Deployment::Cluster);
}

#[test]
fn on_sentinel_a_write_right_after_a_failover_survives_the_next_one() {
    // Two replicas. Right after the first failover the new primary reports
    // no replica connected while the Sentinels point the other one at it;
    // a write then still waits for the replicas the Sentinels list, so the
    // next failover, at once, keeps it.
    let group = RedisSentinels::start(2).expect("a Sentinel group");
    let (a, b) = (
        node(&group.url(), 1, WriteAcks::AllReplicas),
        node(&group.url(), 2, WriteAcks::AllReplicas),
    );
    let first = group.server(0);
    first.kill().expect("kill the first primary");
    let died = Instant::now();
    let second = group.wait_for_failover(first).expect("a failover");
    let owned = activate_once_usable(&a, "x", died);
    second.kill().expect("kill the second primary");
    let died = Instant::now();
    group.wait_for_failover(second).expect("a second failover");
    kept_after_failover(&b, &owned, died);
}

#[test]
fn a_paused_replica_leaves_writes_unknown_until_it_is_back_then_the_same_node_completes_them() {
    let primary = RedisServer::start().expect("redis-server starts");
    let replica = RedisServer::start_replica_of(&primary).expect("a replica");
    let a = node(&primary.url(), 1, WriteAcks::AllReplicas);
    let b = node(&primary.url(), 2, WriteAcks::AllReplicas);
    replica.pause().expect("pause");
    let unknown = a.activate(ACTOR, "x");
    assert!(not_replicated(&unknown), "{unknown:?}");
    assert_eq!(a.owned(key("x")), None);
    assert_eq!(
        a.stats().store_writes_unreplicated,
        3,
        "each of the write's store_attempts"
    );
    replica.resume().expect("resume");
    // A's own Creating record, from the attempt whose outcome was unknown,
    // is adopted by its next activation; no other node can take it.
    let owned = a.activate(ACTOR, "x").expect("the replica is back");
    assert_eq!(owned.state, AuthorityState::Ready);
    let taken = b.activate(ACTOR, "x");
    assert!(taken.is_err(), "{taken:?}");
    assert_eq!(
        replica
            .cli(&["HGET", "zlink:{actor:x}", "st"])
            .expect("read the replica")
            .trim(),
        "ready",
        "answered only once the replica had it"
    );
}

#[test]
fn a_replica_count_the_deployment_cannot_meet_or_a_refused_wait_is_a_config_error() {
    let primary = RedisServer::start().expect("redis-server starts");
    let _replica = RedisServer::start_replica_of(&primary).expect("a replica");
    let two = RedisStore::open_with(&primary.url(), options(WriteAcks::Replicas(2)));
    assert!(
        matches!(&two, Err(StoreError::Config(why)) if why.contains("has 1")),
        "{two:?}"
    );
    RedisStore::open_with(&primary.url(), options(WriteAcks::Replicas(1))).expect("one is met");

    primary
        .cli(&[
            "ACL", "SETUSER", "nowait", "on", ">pw", "~*", "+@all", "-wait",
        ])
        .expect("a user without WAIT");
    let url = format!("redis://nowait:pw@127.0.0.1:{}", primary.port());
    let refused = RedisStore::open_with(&url, options(WriteAcks::AllReplicas));
    assert!(
        matches!(&refused, Err(StoreError::Config(why)) if why.contains("WAIT")),
        "{refused:?}"
    );
    RedisStore::open_with(&url, options(WriteAcks::PrimaryOnly))
        .expect("without durable writes WAIT is not needed");

    let group_less = RedisStore::open("redis+sentinel://127.0.0.1:1");
    assert!(
        matches!(&group_less, Err(StoreError::Config(why)) if why.contains("master name")),
        "{group_less:?}"
    );
}

#[test]
fn a_sentinel_url_naming_a_master_nobody_monitors_is_a_config_error() {
    let group = RedisSentinels::start(0).expect("a Sentinel group");
    let url = group
        .url()
        .replace(zlink_testkit::SENTINEL_MASTER, "nobody");
    let unknown = RedisStore::open(&url);
    assert!(
        matches!(&unknown, Err(StoreError::Config(why)) if why.contains("nobody")),
        "{unknown:?}"
    );
    // The master it does monitor works, and its epoch is its primary's.
    let a = node(&group.url(), 1, WriteAcks::AllReplicas);
    a.activate(ACTOR, "x").expect("no replica to wait for");
}
