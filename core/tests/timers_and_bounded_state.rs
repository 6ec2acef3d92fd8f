//! DESIGN §3 "One clock surface" and §5.9 "Every table is bounded": every
//! deadline of the core goes through `next_deadline` / `on_timeout`, and a
//! table a caller or a peer can grow stays bounded (as `stats().tables`
//! reports it) when 1,000,000 abandoned or hostile items go through it.

mod cluster;

use std::time::Duration;

use cluster::Cluster;
use zlink_core::wire::{self, ActorRoute, Binding, Frame, SessionFrame};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;
const MILLION: u64 = 1_000_000;

fn actor(id: &str) -> ObjectKey {
    ObjectKey::new(ACTOR, id).expect("a valid id")
}

fn tables(rt: &Runtime) -> TableStats {
    rt.stats().tables
}

/// Runs `rt`'s timers if one is due now; returns what they decided.
fn fire(rt: &Runtime) -> Vec<Inbound> {
    let now = rt.now();
    match rt.next_deadline() {
        Some(at) if at <= now => rt.on_timeout(now),
        _ => Vec::new(),
    }
}

// ---- one timer surface --------------------------------------------------------

#[test]
fn next_deadline_is_the_earliest_deadline_of_every_machine_and_early_calls_do_nothing() {
    let c = Cluster::new(
        3,
        RoutingConfig {
            session_bind_timeout: Duration::from_secs(4),
            ..RoutingConfig::default()
        },
    );
    let rt = c.node(2);
    assert_eq!(rt.next_deadline(), None, "nothing waits");
    c.node(1).activate(ACTOR, "a").expect("activation");
    let start = rt.now();
    let asked = rt
        .request(
            ACTOR,
            "a",
            b"q",
            RequestOptions {
                timeout: Duration::from_secs(6),
                ..RequestOptions::default()
            },
        )
        .expect("valid");
    assert!(matches!(asked, Requested::Submitted { .. }));
    assert_eq!(
        rt.next_deadline(),
        Some(start.after(Duration::from_secs(6)))
    );
    rt.open_session(SessionId(1), SessionGeneration(1));
    let r = c.actor_ref(1, "a");
    rt.bind(SessionId(1), &r).expect("open");
    assert_eq!(
        rt.next_deadline(),
        Some(start.after(Duration::from_secs(4))),
        "the bind timeout comes first"
    );
    c.advance_ms(3_999);
    assert!(
        rt.on_timeout(rt.now()).is_empty(),
        "an early call does nothing"
    );
    c.advance_ms(1);
    match fire(rt).as_slice() {
        [
            Inbound::Session(SessionEvent::BindRefused {
                reason: wire::BindRefusal::Timeout,
                ..
            }),
        ] => {}
        other => panic!("expected the bind's refusal, got {other:?}"),
    }
    assert_eq!(
        rt.next_deadline(),
        Some(start.after(Duration::from_secs(6)))
    );
    c.advance_ms(2_000);
    match fire(rt).as_slice() {
        [Inbound::Completed(done)] => assert_eq!(done.outcome, Outcome::Timeout),
        other => panic!("expected the request's timeout, got {other:?}"),
    }
    assert_eq!(rt.next_deadline(), None);
}

/// Work that ended otherwise leaves no deadline behind: a host sleeps until
/// there is something to do (`next_deadline` is `None` when nothing waits).
#[test]
fn an_answered_request_or_bind_leaves_no_deadline_to_wake_for() {
    let c = Cluster::with_defaults(2);
    let rt = c.node(2);
    c.node(1).activate(ACTOR, "a").expect("activation");
    let Requested::Submitted { outbound, .. } = rt
        .request(ACTOR, "a", b"q", RequestOptions::default())
        .expect("valid")
    else {
        panic!("submitted")
    };
    assert!(rt.next_deadline().is_some(), "the request waits");
    let Inbound::Deliver(d) = c.node(1).on_frame(NodeRid(2), &outbound.bytes) else {
        panic!("delivered")
    };
    let reply = c
        .node(1)
        .reply(&d.operation, wire::ReplyResult::Ok(b"a".to_vec()))
        .expect("a reply route");
    assert!(matches!(
        rt.on_frame(NodeRid(1), &reply.bytes),
        Inbound::Completed(_)
    ));
    assert_eq!(
        rt.next_deadline(),
        None,
        "the answered request's deadline is gone"
    );

    rt.open_session(SessionId(1), SessionGeneration(1));
    let bind = rt.bind(SessionId(1), &c.actor_ref(1, "a")).expect("open");
    assert!(rt.next_deadline().is_some(), "the bind waits");
    let Inbound::Send(answer) = c.node(1).on_frame(NodeRid(2), &bind.bytes) else {
        panic!("answered")
    };
    for frame in &answer {
        let _ = rt.on_frame(NodeRid(1), &frame.bytes);
    }
    assert_eq!(
        rt.next_deadline(),
        None,
        "the bound bind's deadline is gone"
    );
}

#[test]
fn a_bind_without_its_terminal_reply_ends_refused_and_a_late_reply_is_tombstoned() {
    let c = Cluster::with_defaults(2);
    let session = c.node(1).open_session(SessionId(7), SessionGeneration(1));
    c.node(2).activate(ACTOR, "a").expect("activation");
    let r = c.actor_ref(2, "a");
    let bind = c.node(1).bind(SessionId(7), &r).expect("open");
    let Inbound::Send(reply) = c.node(2).on_frame(NodeRid(1), &bind.bytes) else {
        panic!("answered")
    };
    c.advance_ms(10_000);
    assert_eq!(
        fire(c.node(1)),
        [Inbound::Session(SessionEvent::BindRefused {
            session,
            actor: actor("a"),
            reason: wire::BindRefusal::Timeout,
        })]
    );
    assert_eq!(tables(c.node(1)).pending_binds, 0);
    assert_eq!(c.node(1).stats().sessions.bind_timeouts, 1);
    assert_eq!(c.node(2).bound_sessions(&actor("a")).len(), 1);
    // The late Bound reply is answered with a tombstone: no registration
    // stays on the Actor owner for a bind nobody waits for.
    let Inbound::Send(tombstone) = c.node(1).on_frame(NodeRid(2), &reply[0].bytes) else {
        panic!("tombstoned")
    };
    assert_eq!(c.node(1).binding(SessionId(7), &actor("a")), None);
    let Inbound::Send(ack) = c.node(2).on_frame(NodeRid(1), &tombstone[0].bytes) else {
        panic!("acked")
    };
    assert!(c.node(2).bound_sessions(&actor("a")).is_empty());
    assert_eq!(
        c.node(1).on_frame(NodeRid(2), &ack[0].bytes),
        Inbound::Send(Vec::new())
    );
}

/// Node 1's Session 7 bound to `a` on node 2; `a` then moves to node 3
/// without the Session (node 2 keeps the binding).
fn bound_then_moved(c: &Cluster) -> ActorRef {
    c.node(1).open_session(SessionId(7), SessionGeneration(1));
    c.node(2).activate(ACTOR, "a").expect("activation");
    let r = c.actor_ref(2, "a");
    let bind = c.node(1).bind(SessionId(7), &r).expect("open");
    let Inbound::Send(reply) = c.node(2).on_frame(NodeRid(1), &bind.bytes) else {
        panic!("answered")
    };
    assert!(matches!(
        c.node(1).on_frame(NodeRid(2), &reply[0].bytes),
        Inbound::Session(SessionEvent::Bound { .. })
    ));
    // Moved by the protocol; its command 44 never reaches the Session owner.
    c.relocate(ACTOR, "a", 2, 3);
    c.actor_ref(3, "a")
}

#[test]
fn a_rebind_whose_previous_owner_never_acks_is_refused_and_releases_its_registration() {
    let c = Cluster::with_defaults(3);
    let moved = bound_then_moved(&c);
    let rebind = c.node(1).bind(SessionId(7), &moved).expect("open");
    let Inbound::Send(_lost_tombstone) = c.node(3).on_frame(NodeRid(1), &rebind.bytes) else {
        panic!("tombstoned")
    };
    assert_eq!(tables(c.node(3)).parked_binds, 1);
    assert_eq!(c.node(3).bound_sessions(&actor("a")).len(), 1);
    c.advance_ms(10_000);
    let refusal = match fire(c.node(3)).as_slice() {
        [Inbound::Send(frames)] => frames[0].clone(),
        other => panic!("expected the refusal, got {other:?}"),
    };
    assert_eq!(tables(c.node(3)).parked_binds, 0);
    assert!(
        c.node(3).bound_sessions(&actor("a")).is_empty(),
        "registration released"
    );
    // The Session owner's own bind deadline is due too: one terminal
    // result. The previous route may be tombstoned already (it was not,
    // here): it goes, and its owner is told to drop it too.
    let mine = fire(c.node(1));
    let [
        Inbound::Send(tombstone),
        Inbound::Session(SessionEvent::BindRefused {
            reason: wire::BindRefusal::Timeout,
            ..
        }),
    ] = mine.as_slice()
    else {
        panic!("expected a tombstone and the refusal, got {mine:?}")
    };
    assert_eq!(tombstone[0].to.rid, NodeRid(2));
    assert_eq!(c.node(1).binding(SessionId(7), &actor("a")), None);
    assert!(matches!(
        c.node(1).on_frame(NodeRid(3), &refusal.bytes),
        Inbound::Session(SessionEvent::Ignored(_))
    ));
    c.node(2).on_frame(NodeRid(1), &tombstone[0].bytes);
    assert!(c.node(2).bound_sessions(&actor("a")).is_empty());
}

/// The Session owner's bind deadline (from the send) passes before the
/// Actor owner's parked one (from the receipt), with the previous owner's
/// ACK in between: the late Bound reply must not leave a registration.
#[test]
fn a_rebind_answered_after_the_session_gave_up_leaves_no_registration() {
    let c = Cluster::with_defaults(3);
    let moved = bound_then_moved(&c);
    let rebind = c.node(1).bind(SessionId(7), &moved).expect("open");
    c.advance_ms(3_000);
    let Inbound::Send(tombstone) = c.node(3).on_frame(NodeRid(1), &rebind.bytes) else {
        panic!("tombstoned")
    };
    let Inbound::Send(ack) = c.node(2).on_frame(NodeRid(3), &tombstone[0].bytes) else {
        panic!("acked")
    };
    c.advance_ms(4_000);
    let Inbound::Send(bound) = c.node(3).on_frame(NodeRid(2), &ack[0].bytes) else {
        panic!("answered")
    };
    c.advance_ms(3_000);
    assert!(
        fire(c.node(1))
            .iter()
            .any(|a| matches!(a, Inbound::Session(SessionEvent::BindRefused { .. })))
    );
    let Inbound::Send(late) = c.node(1).on_frame(NodeRid(3), &bound[0].bytes) else {
        panic!("the late reply is tombstoned")
    };
    c.node(3).on_frame(NodeRid(1), &late[0].bytes);
    assert!(c.node(3).bound_sessions(&actor("a")).is_empty());
    assert!(c.node(2).bound_sessions(&actor("a")).is_empty());
    assert_eq!(c.node(1).binding(SessionId(7), &actor("a")), None);
}

#[test]
fn follow_routes_and_their_dedup_entries_are_swept_by_the_timer() {
    let c = Cluster::with_defaults(3);
    let (stale, _) = c.stale_after_move("a");
    assert!(matches!(
        c.node(1).on_frame(NodeRid(2), &stale.bytes),
        Inbound::Relay { .. }
    ));
    let t = tables(c.node(1));
    assert_eq!((t.follow_routes, t.dedup_entries), (1, 1));
    let expiry = c.node(1).next_deadline().expect("the route's expiry");
    assert_eq!(expiry, c.node(1).now().after(Duration::from_secs(30)));
    c.advance_ms(30_000);
    assert!(fire(c.node(1)).is_empty(), "nothing for the host");
    let t = tables(c.node(1));
    assert_eq!(
        (t.follow_routes, t.dedup_entries, t.follow_deadlines),
        (0, 0, 0)
    );
    assert_eq!(c.node(1).next_deadline(), None);
}

// ---- a million items per table -------------------------------------------------

#[test]
fn a_million_cancelled_requests_leave_the_deadline_heap_bounded() {
    let c = Cluster::with_defaults(2);
    c.node(1).activate(ACTOR, "a").expect("activation");
    let rt = c.node(2);
    let mut most = 0;
    for _ in 0..MILLION {
        let Requested::Submitted { correlation, .. } = rt
            .request(ACTOR, "a", b"", RequestOptions::default())
            .expect("valid")
        else {
            panic!("submitted")
        };
        rt.cancel(correlation).expect("pending");
        most = most.max(tables(rt).request_deadlines);
    }
    let t = tables(rt);
    assert_eq!(t.pending_requests, 0);
    assert!(most <= 64, "the deadline heap reached {most}");
    assert_eq!(rt.stats().requests.cancelled, MILLION);
}

#[test]
fn a_million_unanswered_binds_stay_within_one_bind_timeout() {
    let c = Cluster::with_defaults(2);
    let rt = c.node(1);
    rt.open_session(SessionId(1), SessionGeneration(1));
    c.node(2).activate(ACTOR, "a").expect("activation");
    let r = c.actor_ref(2, "a");
    let (mut most, mut refused) = (TableStats::default(), 0u64);
    for _ in 0..MILLION {
        // One bind per 100 µs, none ever answered: 100,000 per timeout.
        c.clock.advance(Duration::from_micros(100));
        rt.bind(SessionId(1), &r).expect("open");
        refused += fire(rt).len() as u64;
        let t = tables(rt);
        most.pending_binds = most.pending_binds.max(t.pending_binds);
        most.session_deadlines = most.session_deadlines.max(t.session_deadlines);
    }
    assert!(most.pending_binds <= 100_001, "{most:?}");
    assert!(most.session_deadlines <= 2 * 100_001 + 64, "{most:?}");
    c.advance_ms(10_000);
    refused += fire(rt).len() as u64;
    assert_eq!(refused, MILLION, "every bind ended refused, once");
    assert_eq!(tables(rt).pending_binds, 0);
}

#[test]
fn a_million_hostile_rebinds_whose_tombstones_are_never_acked_stay_within_one_bind_timeout() {
    let c = Cluster::with_defaults(3);
    let moved = bound_then_moved(&c);
    let owner = c.node(3);
    let node1 = c.node(1).node_ref();
    // The bound Session's registration moved with the Actor.
    let carried = tables(owner).registrations;
    let (mut most_parked, mut most_regs) = (0, 0);
    for i in 0..MILLION {
        c.clock.advance(Duration::from_micros(100));
        // Node 1 (hostile or lossy) sends rebinds for ever new Sessions,
        // naming a previous owner that never answers.
        let bind = wire::encode(&Frame::Session(SessionFrame::Bind {
            operation_id: OperationId(i + 1),
            session: wire::SessionRef {
                owner: node1,
                id: SessionId(1_000 + i),
                generation: SessionGeneration(1),
            },
            actor: actor("a"),
            route: moved.route,
            previous: Some((
                c.node(2).node_ref(),
                Binding {
                    generation: BindingGeneration(1),
                    token: BindingToken(i),
                },
            )),
        }));
        assert!(matches!(
            owner.on_frame(NodeRid(1), &bind),
            Inbound::Send(_)
        ));
        fire(owner);
        let t = tables(owner);
        most_parked = most_parked.max(t.parked_binds);
        most_regs = most_regs.max(t.registrations);
    }
    assert!(
        most_parked <= 100_001,
        "parked replies reached {most_parked}"
    );
    assert!(
        most_regs <= 100_001 + carried,
        "registrations reached {most_regs}"
    );
    c.advance_ms(10_000);
    fire(owner);
    let t = tables(owner);
    assert_eq!((t.parked_binds, t.registrations), (0, carried));
    assert!(t.parked_deadlines <= 64);
}

#[test]
fn a_million_sessions_that_bind_and_close_leave_no_registration() {
    let c = Cluster::with_defaults(2);
    c.node(2).activate(ACTOR, "a").expect("activation");
    let route = c.actor_ref(2, "a").route;
    let owner = c.node(2);
    let node1 = c.node(1).node_ref();
    for i in 0..MILLION {
        let session = wire::SessionRef {
            owner: node1,
            id: SessionId(i),
            generation: SessionGeneration(1),
        };
        let bind = wire::encode(&Frame::Session(SessionFrame::Bind {
            operation_id: OperationId(2 * i + 1),
            session,
            actor: actor("a"),
            route,
            previous: None,
        }));
        let Inbound::Send(reply) = owner.on_frame(NodeRid(1), &bind) else {
            panic!("answered")
        };
        let Ok(Frame::Session(SessionFrame::BindReply {
            result: wire::BindResult::Bound { binding, .. },
            ..
        })) = wire::decode(&reply[0].bytes, &wire::DecodeLimits::default())
        else {
            panic!("bound")
        };
        // Every other Session ends by its connection closing; the rest
        // are left behind and go with their owner's lease below.
        if i % 2 == 0 {
            let bye = wire::encode(&Frame::Session(SessionFrame::Relay {
                operation_id: OperationId(2 * i + 2),
                session,
                actor: actor("a"),
                binding,
                route: ActorRoute {
                    lease_remaining_ms: 0,
                    ..route
                },
                sequence: 1,
                hop_count: 0,
                relayer: None,
                kind: wire::RelayKind::PhysicalDisconnect,
                payload: Vec::new(),
            }));
            assert!(matches!(
                owner.on_frame(NodeRid(1), &bye),
                Inbound::SessionDeliver(_)
            ));
        }
    }
    assert_eq!(tables(owner).registrations, MILLION / 2);
    owner.on_owner_lease_invalidated(NodeRid(1), c.node(1).identity().lease);
    assert_eq!(tables(owner).registrations, 0);
}

#[test]
fn a_million_hostile_notification_keys_stay_within_the_dedup_bounds() {
    let c = Cluster::with_defaults(3);
    let (stale, route) = c.stale_after_move("a");
    let Ok(Frame::Message(op)) = wire::decode(&stale.bytes, &wire::DecodeLimits::default()) else {
        panic!("a message")
    };
    let old = c.node(1);
    for i in 0..MILLION {
        // Same tenure, every store version different: a new dedup key each.
        let forged = wire::Operation {
            operation_id: OperationId(i),
            fence: RouteFence {
                store_version: StoreVersion(route.fence.store_version.get() + i),
                ..op.fence
            },
            ..op.clone()
        };
        let Inbound::Relay { notice, .. } =
            old.on_frame(NodeRid(2), &wire::encode(&Frame::Message(forged)))
        else {
            panic!("relayed")
        };
        let notice = notice.expect("each key is new: notified");
        old.notice_settled(&notice.token, true);
    }
    let t = tables(old);
    assert!(t.dedup_entries <= 4_096, "{t:?}");
    assert!(t.dedup_evictions >= MILLION - 4_096, "{t:?}");
}

// ---- released objects' tombstones ------------------------------------------

fn claim(node: u64) -> OwnerClaim {
    OwnerClaim {
        mesh: MeshName::new("m").expect("valid"),
        node: NodeRid(node),
        node_generation: NodeGeneration(1),
        lease_generation: OwnerLeaseGeneration(1),
        lease_millis: 60_000,
    }
}

/// Creates and releases `id`: returns the generation it had.
async fn churn(store: &MemoryStore, id: &str, proposal: &mut u64) -> ObjectGeneration {
    let key = KeyRef { kind: ACTOR, id };
    let mut next = || {
        *proposal += 1;
        ProposalId(*proposal)
    };
    let created = store
        .create(key, claim(1), next())
        .await
        .expect("create")
        .value;
    let fence = created.write_fence();
    store
        .begin_release(key, fence, next())
        .await
        .expect("begin");
    store
        .complete_release(key, fence, next())
        .await
        .expect("complete");
    created.object_generation
}

/// A MemoryStore keeping tombstones one second, its clock, an executor.
fn retaining_one_second() -> (ManualClock, MemoryStore, tokio::runtime::Runtime) {
    let clock = ManualClock::new();
    let store = MemoryStore::with_clock(std::sync::Arc::new(clock.clone()))
        .with_retention(Duration::from_secs(1));
    let executor = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("an executor");
    (clock, store, executor)
}

#[test]
fn a_million_released_ids_leave_only_the_tombstones_of_one_retention() {
    let (clock, store, executor) = retaining_one_second();
    let mut proposal = 0;
    let mut most = 0;
    let mut last = ObjectGeneration::default();
    executor.block_on(async {
        for i in 0..MILLION {
            // One release per ms: 1,000 per retention.
            clock.advance(Duration::from_millis(1));
            let generation = churn(&store, &format!("id-{i}"), &mut proposal).await;
            assert!(generation > last, "generations come from one counter");
            last = generation;
            most = most.max(store.len());
        }
    });
    assert!(most <= 1_001, "the store held {most} IDs");
}

#[test]
fn a_generation_never_repeats_for_an_id_after_its_tombstone_expired() {
    let (clock, store, executor) = retaining_one_second();
    let mut proposal = 0;
    executor.block_on(async {
        let first = churn(&store, "x", &mut proposal).await;
        assert_eq!(store.len(), 1, "the tombstone stays for the retention");
        clock.advance(Duration::from_millis(1_001));
        churn(&store, "other", &mut proposal).await;
        assert_eq!(
            store.len(),
            1,
            "x's tombstone expired: only other's is left"
        );
        let again = churn(&store, "x", &mut proposal).await;
        assert!(again > first, "{again:?} after {first:?}");
    });
}

#[test]
fn an_older_bind_timing_out_keeps_a_newer_successful_binding() {
    let c = Cluster::with_defaults(3);
    c.node(1).open_session(SessionId(7), SessionGeneration(1));
    c.node(2).activate(ACTOR, "a").expect("activation");
    let r = c.actor_ref(2, "a");
    // Bind #1 is never answered; bind #2 is, five seconds later.
    c.node(1).bind(SessionId(7), &r).expect("open");
    c.advance_ms(5_000);
    let second = c.node(1).bind(SessionId(7), &r).expect("open");
    let Inbound::Send(reply) = c.node(2).on_frame(NodeRid(1), &second.bytes) else {
        panic!("answered")
    };
    assert!(matches!(
        c.node(1).on_frame(NodeRid(2), &reply[0].bytes),
        Inbound::Session(SessionEvent::Bound { .. })
    ));
    c.advance_ms(5_000);
    let fired = fire(c.node(1));
    assert!(
        matches!(
            fired.as_slice(),
            [Inbound::Session(SessionEvent::BindRefused { .. })]
        ),
        "only #1's refusal, no tombstone: {fired:?}"
    );
    let kept = c.node(1).binding(SessionId(7), &actor("a")).expect("kept");
    assert_eq!(kept.route.owner.rid, NodeRid(2));
    assert_eq!(c.node(2).bound_sessions(&actor("a")).len(), 1);
}

#[test]
fn a_closing_session_takes_no_new_bind_and_tombstones_a_late_bound_reply() {
    let c = Cluster::with_defaults(3);
    c.node(1).open_session(SessionId(7), SessionGeneration(1));
    c.node(2).activate(ACTOR, "a").expect("activation");
    c.node(3).activate(ACTOR, "b").expect("activation");
    let bind_a = c
        .node(1)
        .bind(SessionId(7), &c.actor_ref(2, "a"))
        .expect("open");
    let Inbound::Send(reply) = c.node(2).on_frame(NodeRid(1), &bind_a.bytes) else {
        panic!("answered")
    };
    c.node(1).on_frame(NodeRid(2), &reply[0].bytes);
    let bind_b = c
        .node(1)
        .bind(SessionId(7), &c.actor_ref(3, "b"))
        .expect("open");
    // a is sealed for a relocation, then the Session disconnects: it is
    // closing until the seal settles.
    let started = c
        .node(2)
        .begin_relocation(ACTOR, "a", c.node(3).node_ref(), Capture::default())
        .expect("owned");
    c.node(1).on_frame(NodeRid(2), &started.send[1].bytes);
    c.node(1)
        .disconnect_session(SessionId(7), true)
        .expect("open");
    assert_eq!(
        c.node(1).bind(SessionId(7), &c.actor_ref(3, "b")),
        Err(SessionError::Closing(SessionId(7)))
    );
    // b's reply comes now: no Session will use it, so its owner is told.
    let Inbound::Send(reply) = c.node(3).on_frame(NodeRid(1), &bind_b.bytes) else {
        panic!("answered")
    };
    let Inbound::Send(tombstone) = c.node(1).on_frame(NodeRid(3), &reply[0].bytes) else {
        panic!("tombstoned")
    };
    c.node(3).on_frame(NodeRid(1), &tombstone[0].bytes);
    assert!(c.node(3).bound_sessions(&actor("b")).is_empty());
}
