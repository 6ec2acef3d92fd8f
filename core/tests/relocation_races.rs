//! Races around a relocation's edges (spec §3.3 "never two owners"): a
//! fence that finds a third owner, a fenced source racing a late target
//! CAS, an Abort arriving during the target's owner CAS, and a session
//! relay at the hop limit. Each once broke an invariant; each checks it.

use std::sync::Arc;
use std::time::Duration;

use zlink_core::mesh::{Envelope, Mesh, RestoreMode};
use zlink_core::store::FaultyStore;
use zlink_core::wire::{self, ActorRoute, Binding, Frame, RelayKind, SessionFrame, SessionRef};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;

fn mesh(n: u64) -> Mesh {
    Mesh::new(n, RoutingConfig::default()).expect("valid mesh")
}
fn command(e: &Envelope) -> u8 {
    e.bytes[3]
}
fn key(id: &str) -> KeyRef<'_> {
    KeyRef { kind: ACTOR, id }
}
fn warm(m: &mut Mesh, senders: &[u64], id: &str) {
    for s in senders {
        assert!(matches!(
            m.node(*s).resolve(ACTOR, id).expect("a valid id"),
            Resolution::ReadyRoute(_)
        ));
    }
}

/// The abort's store fence finds a third node holding the object: the
/// source's side ends, its held work ends Unavailable, nothing stays held.
#[test]
fn a_fence_that_finds_a_third_owner_ends_the_source_and_its_held_work() {
    let mut m = mesh(4);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], "p");
    m.restore_mode(RestoreMode::Ignore);
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    m.run();
    m.kill(2);
    m.send(3, ACTOR, "p", b"held-1").unwrap();
    m.run();
    m.advance(Duration::from_secs(5)); // start_abort
    m.run();
    // Someone else holds the object now (e.g. node 1's lease lapsed).
    let rec = m.store_record(ACTOR, "p").unwrap();
    m.force_transfer(ACTOR, "p", rec, 4);
    m.advance(Duration::from_secs(5)); // fence_abort: refused
    m.run();
    for i in 0..5 {
        m.send(3, ACTOR, "p", format!("later-{i}").as_bytes())
            .unwrap();
    }
    m.run();
    for _ in 0..10 {
        m.advance(Duration::from_secs(60));
        m.run();
    }
    let stats = m.node(1).stats();
    assert!(m.node(1).owned(key("p")).is_none());
    assert!(
        m.ledger.unresolved().is_empty(),
        "lost: {:?}",
        m.ledger.unresolved()
    );
    assert_eq!(stats.tables.relocation_sources, 0, "source entry leaked");
}

/// The source fences (aborting, no answer) while the target still sits in
/// relay-ready; the target's later CAS is refused: the saved work the
/// source runs itself is not also refused by the target.
#[test]
fn a_target_cas_refused_by_the_sources_fence_leaves_the_saved_work_to_the_source() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    warm(&mut m, &[3], "p");
    m.send(3, ACTOR, "p", b"saved-1").unwrap();
    let e = m.take_next().unwrap();
    let saved = match m.node(1).on_frame(e.from, &e.bytes) {
        Inbound::Deliver(d) => vec![d.operation],
        other => panic!("{other:?}"),
    };
    m.restore_mode(RestoreMode::Ignore);
    m.drop_when(Some(Box::new(|e| command(e) == 49)));
    m.begin_move_with(
        ACTOR,
        "p",
        1,
        2,
        Capture {
            saved,
            state: vec![],
        },
    )
    .unwrap();
    m.run();
    m.advance(Duration::from_millis(4_999));
    // The target's host restores at the last moment; relay-ready is slow.
    let _ready_in_flight = m.node(2).relocation_restored(ACTOR, "p").unwrap();
    m.advance(Duration::from_millis(1)); // source: no relay-ready -> Aborting
    m.run();
    // The target's commit timer runs late (paused process / CAS retries),
    // after the source's fence deadline.
    m.advance(Duration::from_secs(5));
    m.run();
    assert!(
        m.ledger.delivered_and_ended().is_empty(),
        "run and refused: {:?}",
        m.ledger.delivered_and_ended()
    );
}

/// An Abort from the source reaches the target while its owner CAS is in
/// flight (on the store's I/O; `on_timeout` did not wait for it): the
/// target does not confirm (the store decides); the CAS succeeds and its
/// commit notice makes the aborting source hand off.
#[test]
fn an_abort_during_the_targets_owner_cas_is_decided_by_the_store_never_two_owners() {
    let clock = ManualClock::new();
    let store = Arc::new(FaultyStore::new(MemoryStore::with_clock(Arc::new(
        clock.clone(),
    ))));
    let node = |rid| {
        Runtime::builder(Mesh::identity(rid))
            .config(RoutingConfig::default())
            .clock(Arc::new(clock.clone()))
            .store(store.clone())
            .build()
            .unwrap()
    };
    let (n1, n2) = (node(1), node(2));
    n1.activate(ACTOR, "p").unwrap();
    let started = n1
        .begin_relocation(ACTOR, "p", n2.node_ref(), Capture::default())
        .unwrap();
    assert!(matches!(
        n2.on_frame(NodeRid(1), &started.send[0].bytes),
        Inbound::Relocation(_)
    ));
    let _ready = n2.relocation_restored(ACTOR, "p").unwrap(); // in flight to n1
    let abort = n1.abort_relocation(ACTOR, "p").unwrap(); // source gives up
    let abort_frame = abort.send[0].bytes.clone();
    clock.advance(Duration::from_millis(1_000)); // target's commit timer
    store.set_stalled(true);
    let before = store.calls();
    // The CAS starts on the store's I/O: on_timeout does not wait for it.
    let started = n2.on_timeout(n2.now());
    assert!(started.is_empty(), "{started:?}");
    assert!(store.calls() > before, "the CAS was sent");
    // The Abort arrives while the CAS is running: not confirmed.
    let Inbound::Relocation(w) = n2.on_frame(NodeRid(1), &abort_frame) else {
        panic!("a relocation step")
    };
    assert!(w.send.is_empty(), "no confirmation while the CAS runs");
    store.set_stalled(false);
    // The host polls as next_deadline asks; the CAS answers.
    let mut out = Vec::new();
    let give_up = std::time::Instant::now() + Duration::from_secs(10);
    while out.is_empty() {
        assert!(
            std::time::Instant::now() < give_up,
            "the CAS never answered"
        );
        std::thread::sleep(Duration::from_millis(1));
        clock.advance(Duration::from_millis(10));
        if n2.next_deadline().is_some_and(|t| t <= n2.now()) {
            out = n2.on_timeout(n2.now());
        }
    }
    // The CAS succeeded: the commit notice goes to the source.
    let committed = out
        .into_iter()
        .find_map(|a| match a {
            Inbound::Relocation(a) => a.send.into_iter().find(|f| f.bytes[3] == 48),
            _ => None,
        })
        .expect("a commit notice");
    let Inbound::Relocation(h) = n1.on_frame(NodeRid(2), &committed.bytes) else {
        panic!("a relocation step")
    };
    assert!(
        matches!(h.event, RelocationEvent::HandedOff { .. }),
        "{h:?}"
    );
    let (a, b) = (n1.owned(key("p")), n2.owned(key("p")));
    assert!(
        a.is_none() && b.is_some(),
        "one owner, the target: {a:?} {b:?}"
    );
}

/// A session relay at hop 255 reaching a relaying source is refused at the
/// follow chain's bound, never forwarded (and never overflows).
#[test]
fn a_session_relay_at_the_hop_limit_reaching_a_relaying_source_is_refused() {
    let mut m = mesh(3);
    m.activate(1, ACTOR, "p").unwrap();
    m.delay_when(Some(Box::new(|e| command(e) == 48))); // no Committed yet
    m.begin_move(ACTOR, "p", 1, 2).unwrap();
    m.run(); // source is CutOver
    let n3 = m.node(3).node_ref();
    let frame = Frame::Session(SessionFrame::Relay {
        operation_id: OperationId(77),
        session: SessionRef {
            owner: n3,
            id: SessionId(1),
            generation: SessionGeneration(1),
        },
        actor: ObjectKey::new(ACTOR, "p").unwrap(),
        binding: Binding {
            generation: BindingGeneration(1),
            token: BindingToken(1),
        },
        route: ActorRoute {
            owner: m.node(1).node_ref(),
            object_generation: ObjectGeneration(1),
            authority_owner_generation: AuthorityOwnerGeneration(1),
            owner_lease_generation: OwnerLeaseGeneration(1),
            lease_remaining_ms: 0,
        },
        sequence: 1,
        hop_count: 255,
        relayer: Some(n3),
        kind: RelayKind::Message,
        payload: b"x".to_vec(),
    });
    let bytes = wire::encode(&frame);
    match m.node(1).on_frame(NodeRid(3), &bytes) {
        Inbound::Send(frames) => assert!(matches!(
            wire::decode(&frames[0].bytes, &wire::DecodeLimits::default()),
            Ok(Frame::Session(SessionFrame::Refused { .. }))
        )),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Carries frames among `nodes` (node `i` is rid `i + 1`) until quiet, as a
/// host does: a Restore is restored at once and work a frame makes due
/// (the owner CAS after a cutover) runs. Returns what each node delivered.
fn carry_move(nodes: &[&Runtime], mut queue: Vec<(u64, Outbound)>) -> Vec<(u64, OperationId)> {
    let mut delivered = Vec::new();
    while !queue.is_empty() {
        let (from, out) = queue.remove(0);
        let to = out.to.rid.get();
        let Some(at) = nodes.get((to - 1) as usize) else {
            continue;
        };
        let mut actions = vec![at.on_frame(NodeRid(from), &out.bytes)];
        if at.next_deadline().is_some_and(|d| d <= at.now()) {
            actions.extend(at.on_timeout(at.now()));
        }
        for action in actions {
            if let Inbound::Relocation(r) = action {
                delivered.extend(r.deliver.iter().map(|d| (to, d.operation.operation_id)));
                queue.extend(r.send.into_iter().map(|f| (to, f)));
                if let RelocationEvent::Restore { identity, .. } = &r.event {
                    let k = &identity.key;
                    let ready = at.relocation_restored(k.kind(), k.id()).expect("restored");
                    queue.extend(ready.into_iter().map(|f| (to, f)));
                }
            }
        }
    }
    delivered
}

/// The target's confirmation of a move the source gave up arrives while the
/// source's abort fence is in flight on the store's I/O (issue 28 review):
/// the store decides, not the confirmation. The source stays sealed, so no
/// new move of the object begins on its pre-fence tenure; the fence's answer
/// unseals it on its new tenure, and a move begun after that commits, its
/// saved work delivered once, on the target.
#[test]
fn a_confirmation_while_the_abort_fence_is_in_flight_waits_for_the_store() {
    let clock = ManualClock::new();
    let store = Arc::new(FaultyStore::new(MemoryStore::with_clock(Arc::new(
        clock.clone(),
    ))));
    let config = RoutingConfig {
        relocation_timeout: Duration::from_secs(1),
        ..RoutingConfig::default()
    };
    let node = |rid| {
        Runtime::builder(Mesh::identity(rid))
            .config(config.clone())
            .clock(Arc::new(clock.clone()))
            .store(store.clone())
            .build()
            .unwrap()
    };
    let (n1, n2, n3) = (node(1), node(2), node(3));
    n1.activate(ACTOR, "p").unwrap();
    let Sent::Submitted { outbound, .. } = n2
        .send(ACTOR, "p", b"saved", SendOptions::default())
        .unwrap()
    else {
        panic!("not submitted")
    };
    let Inbound::Deliver(accepted) = n1.on_frame(NodeRid(2), &outbound.bytes) else {
        panic!("not delivered")
    };
    let r1 = n1
        .begin_relocation(ACTOR, "p", n2.node_ref(), Capture::default())
        .unwrap(); // its Restore is lost
    clock.advance(Duration::from_secs(1));
    let abort = n1
        .on_timeout(n1.now())
        .into_iter()
        .find_map(|a| match a {
            Inbound::Relocation(r) => r.send.into_iter().next(),
            _ => None,
        })
        .expect("the Abort to the target");
    clock.advance(Duration::from_secs(1));
    store.set_stalled(true); // the fence is written; its answer waits
    assert!(n1.on_timeout(n1.now()).is_empty(), "the fence is in flight");
    let Inbound::Relocation(confirmed) = n2.on_frame(NodeRid(1), &abort.bytes) else {
        panic!("a relocation step")
    };
    let heard = n1.on_frame(NodeRid(2), &confirmed.send[0].bytes);
    assert!(
        matches!(&heard, Inbound::Relocation(a) if a.event == RelocationEvent::Ignored {
            identity: r1.identity.clone(),
            refusal: zlink_core::relocation::Refusal::Fencing,
        }),
        "{heard:?}"
    );
    assert!(
        matches!(
            n1.begin_relocation(ACTOR, "p", n3.node_ref(), Capture::default()),
            Err(RelocationError::AlreadyRelocating(_))
        ),
        "no new move while the store decides"
    );
    store.set_stalled(false);
    let give_up = std::time::Instant::now() + Duration::from_secs(10);
    let unsealed = loop {
        assert!(
            std::time::Instant::now() < give_up,
            "the fence never answered"
        );
        std::thread::sleep(Duration::from_millis(1));
        if n1.next_deadline().is_some_and(|d| d <= n1.now()) {
            let out = n1.on_timeout(n1.now());
            if !out.is_empty() {
                break out;
            }
        }
    };
    assert!(
        matches!(&unsealed[..], [Inbound::Relocation(a)]
            if matches!(a.event, RelocationEvent::Aborted { .. })),
        "{unsealed:?}"
    );
    let fenced = n1.owned(key("p")).expect("the source runs it again");
    let r2 = n1
        .begin_relocation(
            ACTOR,
            "p",
            n3.node_ref(),
            Capture {
                saved: vec![accepted.operation.clone()],
                state: Vec::new(),
            },
        )
        .expect("a new move on the fenced tenure");
    let delivered = carry_move(
        &[&n1, &n2, &n3],
        r2.send.into_iter().map(|f| (1, f)).collect(),
    );
    assert_eq!(
        delivered,
        vec![(3, accepted.operation.operation_id)],
        "the saved work runs once, on the target"
    );
    let on_n3 = n3.owned(key("p")).expect("the move committed on n3");
    assert!(on_n3.authority_owner_generation > fenced.authority_owner_generation);
    assert_eq!(n1.owned(key("p")), None);
}
