//! Contract tests for spec §4 (How a Request's Reply Returns) and both
//! bullets of §5 "Reply", plus the rules issue 6 adds: exactly one terminal
//! result under concurrent completion, deadlines on the runtime's clock,
//! Spot-origin requests, failures that are never resubmitted, and reply
//! route and correlation that survive Message Follow and a move of the
//! requester. One test per bullet part, named after it, all on a
//! `ManualClock` through the public surface; frames are carried by hand
//! (`request` → `on_frame` → `reply` → `on_frame`) so each test sees every
//! byte, and the mesh harness is used where many frames make the point.

mod cluster;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use cluster::{Cluster, expired, ready, sender};
use zlink_core::mesh::{Carried, Mesh};
use zlink_core::wire::{
    self, DecodeLimits, Frame, HEADER_LEN, Operation, ReplyError, ReplyErrorKind, ReplyFrame,
    ReplyResult, RouteEnd, WireError,
};
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;
const SPOT: ObjectKind = ObjectKind::Spot;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn decode(bytes: &[u8]) -> Frame {
    wire::decode(bytes, &DecodeLimits::default()).expect("a valid frame")
}

fn reply_frame(bytes: &[u8]) -> ReplyFrame {
    match decode(bytes) {
        Frame::Reply(r) => r,
        other => panic!("expected a reply frame, got {other:?}"),
    }
}

fn request_frame(bytes: &[u8]) -> Operation {
    match decode(bytes) {
        Frame::Request(op) => op,
        other => panic!("expected a request frame, got {other:?}"),
    }
}

/// A request that was submitted: what the requester keeps and what it sends.
struct Submitted {
    correlation: CorrelationId,
    operation_id: OperationId,
    outbound: Outbound,
}

fn submitted(requested: Requested) -> Submitted {
    match requested {
        Requested::Submitted {
            correlation,
            operation_id,
            outbound,
        } => Submitted {
            correlation,
            operation_id,
            outbound,
        },
        other => panic!("expected Submitted, got {other:?}"),
    }
}

fn with_timeout(timeout: Duration) -> RequestOptions {
    RequestOptions {
        timeout,
        ..RequestOptions::default()
    }
}

/// Node `from` asks actor `id` with the default options.
fn ask(c: &Cluster, from: u64, id: &str, payload: &[u8]) -> Submitted {
    ask_with(c, from, id, payload, RequestOptions::default())
}

fn ask_with(
    c: &Cluster,
    from: u64,
    id: &str,
    payload: &[u8],
    options: RequestOptions,
) -> Submitted {
    submitted(
        c.node(from)
            .request(ACTOR, id, payload, options)
            .expect("a valid request"),
    )
}

fn delivered(inbound: Inbound) -> Delivery {
    match inbound {
        Inbound::Deliver(d) => d,
        other => panic!("expected Deliver, got {other:?}"),
    }
}

fn completed(inbound: Inbound) -> Completion {
    match inbound {
        Inbound::Completed(done) => done,
        other => panic!("expected Completed, got {other:?}"),
    }
}

fn rejected(inbound: Inbound) -> Outbound {
    match inbound {
        Inbound::Reject(outbound) => outbound,
        other => panic!("expected Reject, got {other:?}"),
    }
}

/// Carries `outbound` from node to node through every Message Follow relay
/// (notices are reported sent and not delivered) and returns the decision
/// of the last node, with every relayed frame on the way.
fn carry(c: &Cluster, outbound: &Outbound) -> (Inbound, Vec<Outbound>) {
    let mut relayed = Vec::new();
    let mut bytes = outbound.bytes.clone();
    let mut at = outbound.to.rid.get();
    loop {
        match c.node(at).on_frame(sender(&bytes), &bytes) {
            Inbound::Relay { forward, notice } => {
                if let Some(notice) = notice {
                    c.node(at).notice_settled(&notice.token, true);
                }
                at = forward.to.rid.get();
                bytes = forward.bytes.clone();
                relayed.push(forward);
            }
            other => return (other, relayed),
        }
    }
}

/// Node 1 owns actor `id`; node `sender` holds a cached route to it.
fn warmed(c: &Cluster, id: &str, sender: u64) -> ReadyRoute {
    c.node(1).activate(ACTOR, id).expect("activation");
    ready(c.node(sender).resolve(ACTOR, id).expect("a valid id"))
}

/// A committed relocation with Message Follow, by the relocation protocol.
/// Returns the target's new tenure.
fn relocate(c: &Cluster, kind: ObjectKind, id: &str, from: u64, to: u64) -> RouteEnd {
    c.relocate(kind, id, from, to);
    c.node(to)
        .owner_route_end(kind, id)
        .expect("a valid id")
        .expect("the target owns it")
}

/// The application's answer: echo the request.
fn echo(c: &Cluster, at: u64, delivery: &Delivery) -> Outbound {
    c.node(at)
        .reply(
            &delivery.operation,
            ReplyResult::Ok(delivery.operation.payload.clone()),
        )
        .expect("a request has a reply route")
}

// §5 Reply, bullet 1: "A reply uses the request's reply route and
// correlation, and doesn't query the requester's logical ID from the
// Location Store." ------------------------------------------------------------

#[test]
fn a_reply_uses_the_requests_reply_route_and_correlation() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p", 2);
    let asked = ask(&c, 2, "p", b"question");
    let op = request_frame(&asked.outbound.bytes);
    let route = op.reply_route.expect("a request carries its reply route");
    assert_eq!(route.node, c.node(2).node_ref(), "the requesting runtime");
    assert_eq!(route.correlation, asked.correlation);
    assert_eq!(op.operation_id, asked.operation_id);

    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    assert_eq!(delivery.operation.reply_route, Some(route));
    let answer = c
        .node(1)
        .reply(&delivery.operation, ReplyResult::Ok(b"answer".to_vec()))
        .unwrap();
    assert_eq!(answer.to, c.node(2).node_ref(), "the reply route's node");
    let frame = reply_frame(&answer.bytes);
    assert_eq!(frame.correlation, asked.correlation);
    assert_eq!(frame.operation_id, asked.operation_id);
    assert_eq!(frame.replier, c.node(1).node_ref());

    let done = completed(c.node(2).on_frame(sender(&answer.bytes), &answer.bytes));
    assert_eq!(done.correlation, asked.correlation);
    assert_eq!(done.operation_id, asked.operation_id);
    assert_eq!(done.target, ObjectKey::new(ACTOR, "p").unwrap());
    assert_eq!(done.outcome, Outcome::Reply(b"answer".to_vec()));
    assert_eq!(c.node(2).pending_requests(), 0);
    assert_eq!(c.node(3).stats().requests, RequestStats::default());
}

#[test]
fn a_reply_does_not_query_the_requesters_logical_id_from_the_location_store() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    // The requester is a Spot with a global ID of its own, owned by node 2.
    let room = c.node(2).activate(SPOT, "room").unwrap();
    let origin = SpotExecution {
        spot: ObjectKey::new(SPOT, "room").unwrap(),
        object_generation: room.object_generation,
    };
    let asked = ask_with(
        &c,
        2,
        "p",
        b"q",
        RequestOptions {
            origin: Some(origin),
            ..RequestOptions::default()
        },
    );

    // The reply leg runs with the store down: any lookup would fail.
    c.store.set_down(true);
    let calls = c.store.calls();
    let (target, requester) = (c.node(1).stats(), c.node(2).stats());
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    let answer = echo(&c, 1, &delivery);
    assert_eq!(answer.to, c.node(2).node_ref());
    let done = completed(c.node(2).on_frame(sender(&answer.bytes), &answer.bytes));
    assert_eq!(done.outcome, Outcome::Reply(b"q".to_vec()));

    assert_eq!(c.store.calls(), calls, "nothing reached the store");
    for (before, after) in [(target, c.node(1).stats()), (requester, c.node(2).stats())] {
        assert_eq!(after.store_reads, before.store_reads);
        assert_eq!(after.store_failures, before.store_failures);
        assert_eq!(after.cache_misses, before.cache_misses);
        assert_eq!(after.cache_hits, before.cache_hits, "not even the cache");
    }
    assert_eq!(
        c.node(1).lookup_cached(SPOT, "room").unwrap(),
        None,
        "the target never looked the requesting Spot up"
    );
}

#[test]
fn a_reply_goes_on_the_reply_route_even_where_the_location_store_names_another_owner_of_the_requester()
 {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p", 2);
    let room = c.node(2).activate(SPOT, "room").unwrap();
    let origin = SpotExecution {
        spot: ObjectKey::new(SPOT, "room").unwrap(),
        object_generation: room.object_generation,
    };
    let asked = ask_with(
        &c,
        2,
        "p",
        b"q",
        RequestOptions {
            origin: Some(origin),
            ..RequestOptions::default()
        },
    );
    // The requesting Spot moves to node 3 and the target learns so: a
    // lookup of the requester would now say node 3.
    relocate(&c, SPOT, "room", 2, 3);
    let now = ready(c.node(1).resolve(SPOT, "room").unwrap());
    assert_eq!(now.route.node, NodeRid(3));

    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    let answer = echo(&c, 1, &delivery);
    assert_eq!(
        answer.to,
        c.node(2).node_ref(),
        "the reply route, not authority"
    );
    completed(c.node(2).on_frame(sender(&answer.bytes), &answer.bytes));
}

// §5 Reply, bullet 2: "Application metadata doesn't substitute for owner
// route or reply route, and request metadata isn't auto-copied to a reply."

#[test]
fn application_metadata_does_not_substitute_for_owner_route_or_reply_route() {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p", 2);
    // Metadata naming another owner and another reply-to, in the only place
    // the application has for it: the payload. The core never reads it.
    let metadata = b"owner=node-3;reply-to=node-3;correlation=7";
    let asked = ask(&c, 2, "p", metadata);
    assert_eq!(asked.outbound.to, c.node(1).node_ref(), "the owner route");
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    let answer = echo(&c, 1, &delivery);
    assert_eq!(answer.to, c.node(2).node_ref(), "the reply route");
    let done = completed(c.node(2).on_frame(sender(&answer.bytes), &answer.bytes));
    assert_eq!(done.correlation, asked.correlation);

    // A one-way message with reply-to metadata is still one-way.
    let Sent::Submitted { outbound, .. } = c
        .node(2)
        .send(ACTOR, "p", metadata, SendOptions::default())
        .unwrap()
    else {
        panic!("expected Submitted");
    };
    assert_eq!(outbound.to, c.node(1).node_ref());
    let one_way = delivered(c.node(1).on_frame(sender(&outbound.bytes), &outbound.bytes));
    assert_eq!(one_way.operation.reply_route, None);
    assert!(
        c.node(1)
            .reply(&one_way.operation, ReplyResult::Ok(vec![]))
            .is_err()
    );
    assert_eq!(c.node(3).stats().follow.delivered, 0);
}

#[test]
fn request_metadata_is_not_auto_copied_to_a_reply() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let mut lengths = Vec::new();
    for metadata in [&b"m"[..], &[0xA5; 4096][..]] {
        let asked = ask(&c, 2, "p", metadata);
        let delivery = delivered(
            c.node(1)
                .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
        );
        let answer = c
            .node(1)
            .reply(&delivery.operation, ReplyResult::Ok(b"ok".to_vec()))
            .unwrap();
        // Every field of the frame, named: correlation, operation, replier,
        // result. A metadata field would break this pattern.
        let ReplyFrame {
            correlation,
            operation_id,
            replier,
            result,
        } = reply_frame(&answer.bytes);
        assert_eq!(correlation, asked.correlation);
        assert_eq!(operation_id, asked.operation_id);
        assert_eq!(replier, c.node(1).node_ref());
        assert_eq!(result, ReplyResult::Ok(b"ok".to_vec()));
        lengths.push(answer.bytes.len());
        completed(c.node(2).on_frame(sender(&answer.bytes), &answer.bytes));
    }
    assert_eq!(
        lengths[0], lengths[1],
        "the reply's size does not depend on the request's"
    );
    assert!(lengths[1] < 4096);
}

#[test]
fn a_regular_reply_provides_no_metadata_setter() {
    // The whole reply API: the delivered request and one result. Nothing
    // else can be given (this line stops compiling if that changes).
    let _: fn(&Runtime, &Operation, ReplyResult) -> Result<Outbound, ReplyRouteError> =
        Runtime::reply;
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let asked = ask(&c, 2, "p", b"x");
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    let error = ReplyError {
        kind: ReplyErrorKind::Handler,
        code: 9,
        message: "no".into(),
    };
    let answer = c
        .node(1)
        .reply(&delivery.operation, ReplyResult::Error(error.clone()))
        .unwrap();
    let ReplyFrame {
        correlation,
        operation_id,
        replier: _,
        result,
    } = reply_frame(&answer.bytes);
    assert_eq!(
        (correlation, operation_id, result),
        (
            asked.correlation,
            asked.operation_id,
            ReplyResult::Error(error)
        )
    );
}

#[test]
fn a_delivered_one_way_message_has_no_reply_route() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let Sent::Submitted {
        operation_id,
        outbound,
    } = c
        .node(2)
        .send(ACTOR, "p", b"fire and forget", SendOptions::default())
        .unwrap()
    else {
        panic!("expected Submitted");
    };
    let delivery = delivered(c.node(1).on_frame(sender(&outbound.bytes), &outbound.bytes));
    assert_eq!(delivery.operation.reply_route, None);
    assert_eq!(
        c.node(1)
            .reply(&delivery.operation, ReplyResult::Ok(b"?".to_vec())),
        Err(ReplyRouteError::OneWay(operation_id))
    );
    assert_eq!(c.node(2).stats().requests, RequestStats::default());
}

// Issue 6 item 2: exactly one terminal result -------------------------------

/// What each of the three racers got in one round.
#[derive(Default)]
struct Tally {
    replies: u64,
    timeouts: u64,
    cancels: u64,
    late_replies: u64,
    late_cancels: u64,
    empty_expiries: u64,
}

#[test]
fn exactly_one_terminal_result_when_reply_timeout_and_cancel_race_from_three_threads() {
    const ROUNDS: u64 = 1_000;
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let requester = c.node(2);
    let mut tally = Tally::default();
    let started = Instant::now();
    for round in 0..ROUNDS {
        let asked = ask_with(&c, 2, "p", &round.to_be_bytes(), with_timeout(ms(1)));
        let delivery = delivered(
            c.node(1)
                .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
        );
        let answer = echo(&c, 1, &delivery);
        // The deadline is reached: the timeout is due exactly now.
        c.advance_ms(1);
        let barrier = Barrier::new(3);
        // The last thread to reach the barrier tends to win: rotate who
        // that is.
        let (by_reply, by_timeout, by_cancel) = std::thread::scope(|s| {
            let (mut reply, mut timeout, mut cancel) = (None, None, None);
            for racer in (0..3).map(|i| (i + round) % 3) {
                match racer {
                    0 => {
                        reply = Some(s.spawn(|| {
                            barrier.wait();
                            requester.on_frame(sender(&answer.bytes), &answer.bytes)
                        }))
                    }
                    1 => {
                        timeout = Some(s.spawn(|| {
                            barrier.wait();
                            expired(requester)
                        }))
                    }
                    _ => {
                        cancel = Some(s.spawn(|| {
                            barrier.wait();
                            requester.cancel(asked.correlation)
                        }))
                    }
                }
            }
            let join = "a racing thread panicked";
            (
                reply.expect("spawned").join().expect(join),
                timeout.expect("spawned").join().expect(join),
                cancel.expect("spawned").join().expect(join),
            )
        });

        let mut winners = Vec::new();
        match by_reply {
            Inbound::Completed(done) => {
                assert_eq!(done.outcome, Outcome::Reply(round.to_be_bytes().to_vec()));
                tally.replies += 1;
                winners.push(done);
            }
            Inbound::Late { correlation } => {
                assert_eq!(correlation, asked.correlation);
                tally.late_replies += 1;
            }
            other => panic!("round {round}: the reply got {other:?}"),
        }
        match by_timeout.as_slice() {
            [] => tally.empty_expiries += 1,
            [done] => {
                assert_eq!(done.outcome, Outcome::Timeout);
                tally.timeouts += 1;
                winners.push(done.clone());
            }
            more => panic!("round {round}: {} timeouts", more.len()),
        }
        match by_cancel {
            Some(done) => {
                assert_eq!(done.outcome, Outcome::Cancelled);
                tally.cancels += 1;
                winners.push(done);
            }
            None => tally.late_cancels += 1,
        }
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        assert_eq!(winners[0].correlation, asked.correlation);
        assert_eq!(winners[0].operation_id, asked.operation_id);
        assert_eq!(requester.pending_requests(), 0);
    }
    let elapsed = started.elapsed();
    eprintln!(
        "{ROUNDS} rounds in {elapsed:?}: won by reply {}, timeout {}, cancel {}",
        tally.replies, tally.timeouts, tally.cancels
    );

    assert_eq!(tally.replies + tally.timeouts + tally.cancels, ROUNDS);
    assert_eq!(
        tally.late_replies + tally.late_cancels + tally.empty_expiries,
        2 * ROUNDS
    );
    let stats = requester.stats().requests;
    assert_eq!(stats.sent, ROUNDS);
    assert_eq!(
        (stats.replies, stats.timeouts, stats.cancelled),
        (tally.replies, tally.timeouts, tally.cancels),
        "the winners' kinds add up"
    );
    assert_eq!((stats.errors, stats.shutdown), (0, 0));
    // A losing reply or cancellation arrived after the end: dropped and
    // counted. A deadline coming up for an ended request is not a result.
    assert_eq!(stats.late_results, tally.late_replies + tally.late_cancels);
}

#[test]
fn a_reply_arriving_after_a_timeout_is_late_and_counted() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let asked = ask_with(&c, 2, "p", b"slow", with_timeout(ms(100)));
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    c.advance_ms(100);
    let timed_out = expired(c.node(2));
    assert_eq!(timed_out.len(), 1);
    assert_eq!(timed_out[0].outcome, Outcome::Timeout);

    let answer = echo(&c, 1, &delivery);
    assert_eq!(
        c.node(2).on_frame(sender(&answer.bytes), &answer.bytes),
        Inbound::Late {
            correlation: asked.correlation
        }
    );
    let stats = c.node(2).stats().requests;
    assert_eq!((stats.timeouts, stats.replies), (1, 0), "the result stays");
    assert_eq!(stats.late_results, 1);
}

#[test]
fn a_second_reply_is_late_and_counted() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let asked = ask(&c, 2, "p", b"x");
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    let first = echo(&c, 1, &delivery);
    let error = c
        .node(1)
        .reply(
            &delivery.operation,
            ReplyResult::Error(ReplyError {
                kind: ReplyErrorKind::Handler,
                code: 1,
                message: "second thoughts".into(),
            }),
        )
        .unwrap();
    assert_eq!(
        completed(c.node(2).on_frame(sender(&first.bytes), &first.bytes)).outcome,
        Outcome::Reply(b"x".to_vec())
    );
    for again in [&first, &error, &first] {
        assert_eq!(
            c.node(2).on_frame(sender(&again.bytes), &again.bytes),
            Inbound::Late {
                correlation: asked.correlation
            }
        );
    }
    let stats = c.node(2).stats().requests;
    assert_eq!((stats.replies, stats.errors), (1, 0));
    assert_eq!(stats.late_results, 3);
}

#[test]
fn a_cancellation_or_timeout_after_the_reply_changes_nothing() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let asked = ask_with(&c, 2, "p", b"x", with_timeout(ms(10)));
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    completed(c.node(2).on_frame(
        sender(&echo(&c, 1, &delivery).bytes),
        &echo(&c, 1, &delivery).bytes,
    ));
    assert_eq!(c.node(2).cancel(asked.correlation), None);
    c.advance_ms(10);
    assert!(expired(c.node(2)).is_empty());
    let stats = c.node(2).stats().requests;
    assert_eq!((stats.replies, stats.cancelled, stats.timeouts), (1, 0, 0));
    assert_eq!(stats.late_results, 1, "the late cancellation");
}

#[test]
fn shutdown_ends_every_pending_request_with_shutdown() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let asked: Vec<_> = (0..50u64)
        .map(|i| ask_with(&c, 2, "p", &i.to_be_bytes(), with_timeout(ms(1_000 + i))))
        .collect();
    // Two of them have their answers on the way.
    let answers: Vec<_> = asked[..2]
        .iter()
        .map(|a| {
            echo(
                &c,
                1,
                &delivered(
                    c.node(1)
                        .on_frame(sender(&a.outbound.bytes), &a.outbound.bytes),
                ),
            )
        })
        .collect();
    assert_eq!(c.node(2).pending_requests(), 50);

    let ended = c.node(2).shutdown_requests();
    assert_eq!(ended.len(), 50);
    assert!(ended.iter().all(|d| d.outcome == Outcome::Shutdown));
    let mut correlations: Vec<_> = ended.iter().map(|d| d.correlation).collect();
    correlations.sort();
    let mut expected: Vec<_> = asked.iter().map(|a| a.correlation).collect();
    expected.sort();
    assert_eq!(correlations, expected, "each one, once");
    assert_eq!(c.node(2).pending_requests(), 0);

    // Nothing after shutdown changes a result.
    for answer in &answers {
        assert!(matches!(
            c.node(2).on_frame(sender(&answer.bytes), &answer.bytes),
            Inbound::Late { .. }
        ));
    }
    c.advance_ms(10_000);
    assert!(expired(c.node(2)).is_empty());
    assert!(c.node(2).shutdown_requests().is_empty());
    let stats = c.node(2).stats().requests;
    assert_eq!(stats.shutdown, 50);
    assert_eq!((stats.replies, stats.timeouts), (0, 0));
    assert_eq!(stats.late_results, 2);
}

// Issue 6 item 3: deadlines on the runtime's clock ----------------------------

#[test]
fn no_timeout_before_the_deadline_and_a_timeout_exactly_at_it() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let asked = ask_with(&c, 2, "p", b"x", with_timeout(ms(5_000)));
    // Only the runtime's clock counts: it has not moved.
    assert!(expired(c.node(2)).is_empty());
    c.clock.advance(ms(5_000) - Duration::from_nanos(1));
    assert!(expired(c.node(2)).is_empty(), "1 ns early");
    assert_eq!(c.node(2).pending_requests(), 1);
    c.clock.advance(Duration::from_nanos(1));
    let due = expired(c.node(2));
    assert_eq!(due.len(), 1);
    assert_eq!(
        (due[0].correlation, &due[0].outcome),
        (asked.correlation, &Outcome::Timeout)
    );
    assert!(expired(c.node(2)).is_empty(), "only once");
    assert_eq!(c.node(2).stats().requests.timeouts, 1);
}

#[test]
fn a_hundred_thousand_pending_requests_time_out_in_deadline_order() {
    const N: u64 = 100_000;
    let started = Instant::now();
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    // Deadlines spread over 1..=100 s, submitted in scrambled order.
    let mut deadline_of = HashMap::with_capacity(N as usize);
    for i in 0..N {
        let timeout = ms(1 + (i * 7_919) % N);
        let asked = ask_with(&c, 2, "p", b"", with_timeout(timeout));
        deadline_of.insert(asked.correlation, timeout);
    }
    assert_eq!(c.node(2).pending_requests(), N as usize);

    let (mut now, mut last, mut timed_out) = (Duration::ZERO, Duration::ZERO, 0u64);
    while now < ms(N) {
        c.clock.advance(ms(1_000));
        now += ms(1_000);
        for done in expired(c.node(2)) {
            assert_eq!(done.outcome, Outcome::Timeout);
            let deadline = deadline_of[&done.correlation];
            assert!(deadline <= now, "{deadline:?} fired at {now:?}");
            assert!(deadline >= last, "{deadline:?} after {last:?}");
            assert!(deadline > now - ms(1_000), "{deadline:?} fired late");
            last = deadline;
            timed_out += 1;
        }
        assert_eq!(c.node(2).pending_requests() as u64, N - timed_out);
    }
    assert_eq!(timed_out, N);
    assert_eq!(c.node(2).stats().requests.timeouts, N);
    eprintln!(
        "{N} requests submitted and expired in {:?}",
        started.elapsed()
    );
}

// Issue 6 item 4 / spec §4.2: Spot-origin requests ----------------------------

/// Node 1 owns actor "p"; node 2 owns Spot "room", which asks "p".
fn spot_origin(c: &Cluster) -> (SpotExecution, Submitted) {
    warmed(c, "p", 2);
    let room = c.node(2).activate(SPOT, "room").expect("activation");
    let origin = SpotExecution {
        spot: ObjectKey::new(SPOT, "room").expect("a valid id"),
        object_generation: room.object_generation,
    };
    let asked = ask_with(
        c,
        2,
        "p",
        b"from room",
        RequestOptions {
            origin: Some(origin.clone()),
            ..RequestOptions::default()
        },
    );
    (origin, asked)
}

#[test]
fn a_spot_origin_request_completes_with_the_spot_execution_and_its_object_generation() {
    let c = Cluster::with_defaults(2);
    let (origin, asked) = spot_origin(&c);
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    let done = completed(c.node(2).on_frame(
        sender(&echo(&c, 1, &delivery).bytes),
        &echo(&c, 1, &delivery).bytes,
    ));
    assert_eq!(done.origin, Some(origin));
    assert!(!done.origin_gone);
    assert_eq!(done.outcome, Outcome::Reply(b"from room".to_vec()));
}

#[test]
fn a_spot_origin_request_keeps_its_origin_whatever_ends_it() {
    let c = Cluster::with_defaults(2);
    let (origin, asked) = spot_origin(&c);
    c.advance_ms(5_000);
    let timed_out = expired(c.node(2));
    assert_eq!(timed_out.len(), 1);
    assert_eq!(timed_out[0].origin, Some(origin.clone()));
    assert!(!timed_out[0].origin_gone);
    let second = ask_with(
        &c,
        2,
        "p",
        b"again",
        RequestOptions {
            origin: Some(origin.clone()),
            ..RequestOptions::default()
        },
    );
    let cancelled = c.node(2).cancel(second.correlation).unwrap();
    assert_eq!(cancelled.origin, Some(origin));
    assert_ne!(asked.correlation, second.correlation);
}

#[test]
fn a_reply_for_a_previous_incarnation_of_the_origin_spot_is_never_delivered_to_the_new_one() {
    let c = Cluster::with_defaults(2);
    let (origin, asked) = spot_origin(&c);
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    // Before the answer arrives, the Spot is released and re-created on the
    // requesting node under the same ID.
    c.node(2).begin_release(SPOT, "room").unwrap();
    c.node(2).complete_release(SPOT, "room").unwrap();
    let reborn = c.node(2).activate(SPOT, "room").unwrap();
    assert_ne!(reborn.object_generation, origin.object_generation);

    let delivered_before = c.node(2).stats().follow.delivered;
    let done = completed(c.node(2).on_frame(
        sender(&echo(&c, 1, &delivery).bytes),
        &echo(&c, 1, &delivery).bytes,
    ));
    assert!(
        done.origin_gone,
        "the outcome resumes the old execution only"
    );
    assert_eq!(done.origin, Some(origin), "which it names");
    assert_eq!(
        c.node(2).stats().follow.delivered,
        delivered_before,
        "no application message for the new incarnation"
    );
    assert_eq!(c.node(2).stats().requests.replies, 1);
}

#[test]
fn a_move_of_the_origin_spot_is_not_a_new_incarnation() {
    let c = Cluster::with_defaults(3);
    let (origin, asked) = spot_origin(&c);
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    relocate(&c, SPOT, "room", 2, 3);
    let done = completed(c.node(2).on_frame(
        sender(&echo(&c, 1, &delivery).bytes),
        &echo(&c, 1, &delivery).bytes,
    ));
    assert!(!done.origin_gone);
    assert_eq!(done.origin, Some(origin.clone()));

    // And moved back (still the same incarnation): still not gone.
    let again = ask_with(
        &c,
        2,
        "p",
        b"x",
        RequestOptions {
            origin: Some(origin),
            ..RequestOptions::default()
        },
    );
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&again.outbound.bytes), &again.outbound.bytes),
    );
    relocate(&c, SPOT, "room", 3, 2);
    let done = completed(c.node(2).on_frame(
        sender(&echo(&c, 1, &delivery).bytes),
        &echo(&c, 1, &delivery).bytes,
    ));
    assert!(!done.origin_gone);
}

// Issue 6 item 5 / spec §4.3: failures ----------------------------------------

fn error_reply(kind: ReplyErrorKind) {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let asked = ask(&c, 2, "p", b"\xffnot what the handler expects");
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    let error = ReplyError {
        kind,
        code: 4_221,
        message: "handler said no: ünïcode kept".into(),
    };
    let answer = c
        .node(1)
        .reply(&delivery.operation, ReplyResult::Error(error.clone()))
        .expect("a request has a reply route");
    assert_eq!(answer.to, c.node(2).node_ref(), "on the reply route");
    let done = completed(c.node(2).on_frame(sender(&answer.bytes), &answer.bytes));
    assert_eq!(done.correlation, asked.correlation);
    assert_eq!(done.outcome, Outcome::Error(RequestError::Replied(error)));
    let stats = c.node(2).stats().requests;
    assert_eq!((stats.errors, stats.replies), (1, 0));
}

#[test]
fn a_handler_failure_with_a_restorable_reply_route_completes_with_a_structured_error_reply() {
    error_reply(ReplyErrorKind::Handler);
}

#[test]
fn a_decode_failure_with_a_restorable_reply_route_completes_with_a_structured_error_reply() {
    error_reply(ReplyErrorKind::Decode);
}

fn follow_off() -> RoutingConfig {
    RoutingConfig {
        message_follow_duration: Duration::ZERO,
        ..RoutingConfig::default()
    }
}

#[test]
fn a_request_refused_on_a_stale_route_ends_unavailable_and_is_not_resubmitted() {
    let c = Cluster::new(3, follow_off());
    warmed(&c, "p", 3);
    let asked = ask(&c, 3, "p", b"x");
    relocate(&c, ACTOR, "p", 1, 2);
    let (reads, calls) = (c.node(3).stats().store_reads, c.store.calls());
    let refusal = rejected(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    assert_eq!(refusal.to, c.node(3).node_ref());
    // The requester's decision is a completion: no frame to send anywhere.
    let done = completed(c.node(3).on_frame(sender(&refusal.bytes), &refusal.bytes));
    assert_eq!(done.correlation, asked.correlation);
    assert_eq!(
        done.outcome,
        Outcome::Error(RequestError::Unavailable(UnavailableReason::StaleRoute))
    );
    assert_eq!(c.node(3).stats().store_reads, reads, "no lookup");
    assert_eq!(c.store.calls(), calls, "no store call at all");
    assert_eq!(c.node(3).pending_requests(), 0);
    assert_eq!(
        c.node(2).stats().follow.delivered,
        0,
        "not sent to the new owner"
    );
    assert_eq!(c.node(3).stats().requests.errors, 1);
}

#[test]
fn a_request_refused_at_the_follow_hop_limit_ends_unavailable_and_is_not_resubmitted() {
    let config = RoutingConfig {
        max_follow_hops: 2,
        ..RoutingConfig::default()
    };
    let c = Cluster::new(5, config);
    warmed(&c, "p", 5);
    let asked = ask(&c, 5, "p", b"far");
    for (from, to) in [(1, 2), (2, 3), (3, 4)] {
        relocate(&c, ACTOR, "p", from, to);
    }
    let (reads, calls) = (c.node(5).stats().store_reads, c.store.calls());
    let (decision, relayed) = carry(&c, &asked.outbound);
    assert_eq!(relayed.len(), 2, "two hops, then refused");
    let refusal = rejected(decision);
    assert_eq!(refusal.to, c.node(5).node_ref());
    let done = completed(c.node(5).on_frame(sender(&refusal.bytes), &refusal.bytes));
    assert_eq!(done.correlation, asked.correlation);
    assert_eq!(
        done.outcome,
        Outcome::Error(RequestError::Unavailable(UnavailableReason::FollowHopLimit))
    );
    assert_eq!(c.node(5).stats().store_reads, reads, "no lookup");
    assert_eq!(c.store.calls(), calls);
    assert_eq!(c.node(4).stats().follow.delivered, 0);
    assert_eq!(c.node(5).pending_requests(), 0);
}

#[test]
fn a_request_on_a_follow_route_of_another_incarnation_ends_invalid_operation_and_is_not_resubmitted()
 {
    let c = Cluster::with_defaults(3);
    warmed(&c, "p", 3);
    // The owner closes p and re-creates it, then the new incarnation moves
    // away; the requester still holds the previous incarnation's route.
    c.node(1).begin_release(ACTOR, "p").unwrap();
    c.node(1).complete_release(ACTOR, "p").unwrap();
    c.node(1).activate(ACTOR, "p").unwrap();
    relocate(&c, ACTOR, "p", 1, 2);
    let asked = ask(&c, 3, "p", b"x");
    let (reads, calls) = (c.node(3).stats().store_reads, c.store.calls());
    let refusal = rejected(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    let done = completed(c.node(3).on_frame(sender(&refusal.bytes), &refusal.bytes));
    assert_eq!(done.correlation, asked.correlation);
    assert_eq!(done.outcome, Outcome::Error(RequestError::InvalidOperation));
    assert_eq!(c.node(3).stats().store_reads, reads, "no lookup");
    assert_eq!(c.store.calls(), calls);
    assert_eq!(c.node(2).stats().follow.delivered, 0, "not retargeted");
    assert_eq!(c.node(3).pending_requests(), 0);
}

#[test]
fn a_request_that_cannot_be_sent_ends_at_once_and_leaves_nothing_pending() {
    // One store attempt: a failure is final at once (no backoff).
    let config = RoutingConfig {
        store_attempts: 1,
        ..RoutingConfig::default()
    };
    let c = Cluster::new(2, config);
    assert_eq!(
        c.node(2)
            .request(ACTOR, "nobody", b"x", RequestOptions::default())
            .unwrap(),
        Requested::NotFound
    );
    c.node(1).activate(ACTOR, "closing").unwrap();
    c.node(1).begin_release(ACTOR, "closing").unwrap();
    assert_eq!(
        c.node(2)
            .request(ACTOR, "closing", b"x", RequestOptions::default())
            .unwrap(),
        Requested::Unavailable(UnavailableReason::Releasing)
    );
    c.store.set_down(true);
    assert!(matches!(
        c.node(2)
            .request(ACTOR, "elsewhere", b"x", RequestOptions::default())
            .unwrap(),
        Requested::StoreFailure(_)
    ));
    assert!(matches!(
        c.node(2)
            .request(ACTOR, "p", b"x", with_timeout(Duration::ZERO)),
        Err(InputError::ZeroDeadline)
    ));
    assert_eq!(c.node(2).pending_requests(), 0);
    assert_eq!(c.node(2).stats().requests.sent, 0);
}

#[test]
fn an_error_reply_message_over_the_bound_arrives_cut_at_a_char_boundary() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let asked = ask(&c, 2, "p", b"x");
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    let long = "é".repeat(wire::MAX_ERROR_MESSAGE_BYTES); // two bytes each
    let answer = c
        .node(1)
        .reply(
            &delivery.operation,
            ReplyResult::Error(ReplyError {
                kind: ReplyErrorKind::Handler,
                code: 1,
                message: long.clone(),
            }),
        )
        .unwrap();
    match completed(c.node(2).on_frame(sender(&answer.bytes), &answer.bytes)).outcome {
        Outcome::Error(RequestError::Replied(e)) => {
            assert!(e.message.len() <= wire::MAX_ERROR_MESSAGE_BYTES);
            assert!(long.starts_with(&e.message) && !e.message.is_empty());
        }
        other => panic!("expected an error reply, got {other:?}"),
    }
}

#[test]
fn a_reply_over_the_message_bound_is_refused_before_it_leaves() {
    let config = RoutingConfig {
        max_message_bytes: 64,
        ..RoutingConfig::default()
    };
    let c = Cluster::new(2, config);
    warmed(&c, "p", 2);
    let asked = ask(&c, 2, "p", b"x");
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    assert_eq!(
        c.node(1)
            .reply(&delivery.operation, ReplyResult::Ok(vec![0; 65])),
        Err(ReplyRouteError::TooLarge { len: 65, max: 64 })
    );
    // The request is still waiting for an answer that fits.
    assert_eq!(c.node(2).pending_requests(), 1);
    let fits = c
        .node(1)
        .reply(&delivery.operation, ReplyResult::Ok(vec![0; 64]))
        .unwrap();
    completed(c.node(2).on_frame(sender(&fits.bytes), &fits.bytes));
}

/// §4.3: "For a request whose reply route can be restored, the framework
/// completes a handler/decode failure with a structured error reply."
#[test]
fn an_undecodable_request_whose_reply_route_decodes_is_answered_with_a_decode_error() {
    let config = RoutingConfig {
        max_message_bytes: 64,
        ..RoutingConfig::default()
    };
    let c = Cluster::new(2, config.clone());
    warmed(&c, "p", 2);
    // Cut short in its payload, and over the receiver's message bound (the
    // sender's is larger).
    let cut = ask(&c, 2, "p", b"cut");
    let truncated = cut.outbound.bytes[..cut.outbound.bytes.len() - 1].to_vec();
    c.node(2)
        .update_config(RoutingConfig {
            max_message_bytes: 1024,
            ..config
        })
        .unwrap();
    let big = ask(&c, 2, "p", &[7; 100]);
    let calls = c.store.calls();
    for (corrupt, asked) in [(&truncated, &cut), (&big.outbound.bytes, &big)] {
        let Inbound::Send(frames) = c.node(1).on_frame(sender(corrupt), corrupt) else {
            panic!("expected the error reply to send");
        };
        let [reply] = frames.as_slice() else {
            panic!("one reply, got {frames:?}");
        };
        assert_eq!(reply.to.rid, NodeRid(2), "on the request's reply route");
        let done = completed(c.node(2).on_frame(sender(&reply.bytes), &reply.bytes));
        assert_eq!(done.correlation, asked.correlation);
        match done.outcome {
            Outcome::Error(RequestError::Replied(e)) => {
                assert_eq!(e.kind, ReplyErrorKind::Decode);
                assert!(e.message.contains("could not be decoded"), "{e:?}");
            }
            other => panic!("expected a Decode error reply, got {other:?}"),
        }
    }
    let stats = c.node(1).stats();
    assert_eq!(stats.requests.undecodable_answered, 2);
    assert_eq!(stats.requests.unroutable, 0);
    assert_eq!(stats.follow.frames_dropped, 2, "still undecodable frames");
    assert_eq!(stats.follow.delivered, 0);
    assert_eq!(c.store.calls(), calls, "the requester is never looked up");
    assert_eq!(c.node(2).pending_requests(), 0, "each ended once");
}

#[test]
fn an_undecodable_request_is_dropped_and_counted_when_its_reply_route_cannot_be_restored() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let asked = ask_with(&c, 2, "p", b"x", with_timeout(ms(1_000)));
    let mut bad_kind = asked.outbound.bytes.clone();
    bad_kind[HEADER_LEN + 8] = 0xEE; // the target's object kind, before the route
    let calls = c.store.calls();
    match c.node(1).on_frame(sender(&bad_kind), &bad_kind) {
        Inbound::Dropped(_) => {}
        other => panic!("expected Dropped, got {other:?}"),
    }
    // A request naming another sender than its connection's is not
    // answered either: the answer would go where the frame says, unchecked.
    let truncated = &asked.outbound.bytes[..asked.outbound.bytes.len() - 1];
    match c.node(1).on_frame(NodeRid(9), truncated) {
        Inbound::Dropped(_) => {}
        other => panic!("expected Dropped, got {other:?}"),
    }
    let stats = c.node(1).stats();
    assert_eq!(stats.requests.unroutable, 2);
    assert_eq!(stats.requests.undecodable_answered, 0);
    assert_eq!(stats.follow.frames_dropped, 2);
    assert_eq!(stats.follow.delivered, 0);
    assert_eq!(stats.follow.rejections_sent, 0, "no answer can be sent");
    assert_eq!(c.store.calls(), calls, "the requester is never looked up");

    // A corrupt one-way message has no reply route to lose.
    let Sent::Submitted { outbound, .. } = c
        .node(2)
        .send(ACTOR, "p", b"m", SendOptions::default())
        .unwrap()
    else {
        panic!("expected Submitted");
    };
    let mut bad_message = outbound.bytes;
    bad_message[HEADER_LEN + 8] = 0xEE;
    assert!(matches!(
        c.node(1).on_frame(sender(&bad_message), &bad_message),
        Inbound::Dropped(WireError::Invalid { .. })
    ));
    assert_eq!(c.node(1).stats().requests.unroutable, 2);

    // The requester learns by its deadline, once.
    c.advance_ms(1_000);
    let due = expired(c.node(2));
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].correlation, asked.correlation);
}

#[test]
fn an_undecodable_reply_is_dropped_and_the_request_still_ends_once() {
    let c = Cluster::with_defaults(2);
    warmed(&c, "p", 2);
    let asked = ask_with(&c, 2, "p", b"x", with_timeout(ms(1_000)));
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    let answer = echo(&c, 1, &delivery);
    let truncated = &answer.bytes[..answer.bytes.len() - 1];
    assert!(matches!(
        c.node(2).on_frame(sender(truncated), truncated),
        Inbound::Dropped(_)
    ));
    assert_eq!(c.node(2).pending_requests(), 1, "not ended by garbage");
    assert_eq!(c.node(2).stats().requests.unroutable, 0);
    completed(c.node(2).on_frame(sender(&answer.bytes), &answer.bytes));
    c.advance_ms(1_000);
    assert!(expired(c.node(2)).is_empty());
}

#[test]
fn no_request_is_resubmitted_after_a_timeout() {
    let mut m = Mesh::new(3, RoutingConfig::default()).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    m.answer_requests(false);
    let asked = submitted(
        m.request(3, ACTOR, "p", b"x", with_timeout(ms(500)))
            .unwrap(),
    );
    m.run();
    let reads = m.node(3).stats().store_reads;
    m.advance(ms(500));
    assert_eq!(m.ledger.completed, vec![(asked.operation_id, "Timeout")]);
    assert_eq!(m.in_flight(), 0, "nothing sent");
    m.run();
    assert_eq!(m.ledger.delivered.len(), 1, "delivered once, not again");
    assert_eq!(m.node(3).stats().store_reads, reads, "no lookup");
    assert_eq!(m.node(3).stats().requests.sent, 1);
}

#[test]
fn no_request_is_resubmitted_after_a_cancellation() {
    let mut m = Mesh::new(3, RoutingConfig::default()).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    let asked = submitted(
        m.request(3, ACTOR, "p", b"x", RequestOptions::default())
            .unwrap(),
    );
    let reads = m.node(3).stats().store_reads;
    let cancelled = m.node(3).cancel(asked.correlation).expect("pending");
    assert_eq!(cancelled.outcome, Outcome::Cancelled);
    assert_eq!(m.in_flight(), 1, "only the original frame, already sent");
    // The frame already left: it is delivered once, its reply is late.
    m.run();
    assert_eq!(m.ledger.delivered.len(), 1);
    assert_eq!(m.ledger.late, 1);
    assert!(m.ledger.completed.is_empty(), "the reply changed nothing");
    assert_eq!(m.node(3).stats().store_reads, reads, "no lookup");
    assert_eq!(m.node(3).stats().requests.sent, 1);
    assert_eq!(m.node(3).pending_requests(), 0);
}

// Issue 6 item 6 / spec §4.2: reply route and correlation survive Message
// Follow and a move of the requester -------------------------------------------

fn through_moves(moves: &[(u64, u64)]) {
    let c = Cluster::with_defaults(5);
    warmed(&c, "p", 5);
    let asked = ask(&c, 5, "p", b"follow me");
    let original = request_frame(&asked.outbound.bytes);
    for &(from, to) in moves {
        relocate(&c, ACTOR, "p", from, to);
    }
    let (decision, relayed) = carry(&c, &asked.outbound);
    assert_eq!(relayed.len(), moves.len());
    for forward in &relayed {
        let op = request_frame(&forward.bytes);
        assert_eq!(op.reply_route, original.reply_route);
        assert_eq!(op.operation_id, original.operation_id);
    }
    let delivery = delivered(decision);
    let owner = moves.last().expect("at least one move").1;
    assert_eq!(delivery.operation.hop_count as usize, moves.len());
    assert_eq!(delivery.operation.reply_route, original.reply_route);
    let answer = echo(&c, owner, &delivery);
    assert_eq!(
        answer.to,
        c.node(5).node_ref(),
        "back to the original requester"
    );
    assert_eq!(reply_frame(&answer.bytes).correlation, asked.correlation);
    let done = completed(c.node(5).on_frame(sender(&answer.bytes), &answer.bytes));
    assert_eq!(done.correlation, asked.correlation);
    assert_eq!(done.outcome, Outcome::Reply(b"follow me".to_vec()));
    assert!(matches!(
        c.node(5).on_frame(sender(&answer.bytes), &answer.bytes),
        Inbound::Late { .. }
    ));
    assert_eq!(c.node(5).stats().requests.replies, 1);
}

#[test]
fn reply_route_and_correlation_survive_one_message_follow_relay() {
    through_moves(&[(1, 2)]);
}

#[test]
fn reply_route_and_correlation_survive_two_message_follow_relays() {
    through_moves(&[(1, 2), (2, 3)]);
}

#[test]
fn a_request_relayed_through_two_moves_completes_once_at_the_original_requester() {
    let mut m = Mesh::new(4, RoutingConfig::default()).unwrap();
    m.activate(1, ACTOR, "p").unwrap();
    m.send(4, ACTOR, "p", b"warm").unwrap();
    m.run();
    m.relocate(ACTOR, "p", 1, 2).unwrap();
    m.relocate(ACTOR, "p", 2, 3).unwrap();
    // Watch every frame go by (and drop none).
    let seen = Rc::new(RefCell::new(Vec::new()));
    let log = seen.clone();
    m.drop_when(Some(Box::new(move |e| {
        log.borrow_mut().push(e.clone());
        false
    })));
    let asked = submitted(
        m.request(4, ACTOR, "p", b"q", RequestOptions::default())
            .unwrap(),
    );
    m.run();

    assert_eq!(m.ledger.completed, vec![(asked.operation_id, "Reply")]);
    assert!(m.ledger.double_completions().is_empty());
    assert_eq!(m.ledger.late, 0);
    assert_eq!(
        m.ledger.delivered,
        vec![
            (m.ledger.delivered[0].0, NodeRid(1), 0),
            (asked.operation_id, NodeRid(3), 2)
        ]
    );
    let seen = seen.borrow();
    let relays: Vec<_> = seen
        .iter()
        .filter(|e| e.carried == Carried::Relayed)
        .map(|e| request_frame(&e.bytes))
        .collect();
    assert_eq!(relays.len(), 2);
    for op in &relays {
        let route = op.reply_route.expect("still a request");
        assert_eq!(route.correlation, asked.correlation, "unchanged");
        assert_eq!(route.node, m.node(4).node_ref());
    }
    let replies: Vec<_> = seen
        .iter()
        .filter(|e| e.carried == Carried::Reply)
        .collect();
    assert_eq!(replies.len(), 1);
    assert_eq!((replies[0].from, replies[0].to), (NodeRid(3), NodeRid(4)));
    let reply = reply_frame(&replies[0].bytes);
    assert_eq!(
        (reply.correlation, reply.operation_id),
        (asked.correlation, asked.operation_id)
    );
    assert_eq!(m.node(4).pending_requests(), 0);
}

#[test]
fn a_reply_arriving_after_a_relocation_of_the_requester_completes_at_the_requesting_runtime() {
    let c = Cluster::with_defaults(3);
    let (origin, asked) = spot_origin(&c);
    let delivery = delivered(
        c.node(1)
            .on_frame(sender(&asked.outbound.bytes), &asked.outbound.bytes),
    );
    // The requesting Spot moves away after sending; the answer is built after.
    relocate(&c, SPOT, "room", 2, 3);
    c.store.set_down(true);
    let answer = echo(&c, 1, &delivery);
    assert_eq!(answer.to, c.node(2).node_ref());
    let done = completed(c.node(2).on_frame(sender(&answer.bytes), &answer.bytes));
    assert_eq!(done.correlation, asked.correlation);
    assert_eq!(done.origin, Some(origin));
    assert!(!done.origin_gone, "a move is not a new incarnation");
    assert_eq!(c.node(3).stats().requests, RequestStats::default());
    assert_eq!(c.node(2).pending_requests(), 0);
}

#[test]
fn a_refusal_arriving_after_a_timeout_is_late_and_counted() {
    let c = Cluster::new(3, follow_off());
    c.node(1).activate(ACTOR, "p").unwrap();
    ready(c.node(3).resolve(ACTOR, "p").unwrap());
    let options = RequestOptions {
        timeout: Duration::from_millis(100),
        ..RequestOptions::default()
    };
    let Requested::Submitted {
        correlation,
        outbound,
        ..
    } = c.node(3).request(ACTOR, "p", b"x", options).unwrap()
    else {
        panic!("submitted")
    };
    c.relocate(ACTOR, "p", 1, 2);
    let Inbound::Reject(refusal) = c.node(1).on_frame(sender(&outbound.bytes), &outbound.bytes)
    else {
        panic!("refused")
    };
    c.advance_ms(100);
    assert_eq!(expired(c.node(3)).len(), 1);
    assert_eq!(
        c.node(3).on_frame(sender(&refusal.bytes), &refusal.bytes),
        Inbound::Late { correlation }
    );
    assert_eq!(c.node(3).stats().requests.late_results, 1);
}

#[test]
fn a_request_submitted_while_expiry_runs_keeps_its_deadline() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let c = Cluster::with_defaults(2);
    c.node(1).activate(ACTOR, "p").unwrap();
    ready(c.node(2).resolve(ACTOR, "p").unwrap());
    let requester = c.node(2);
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                c.clock.advance(Duration::from_nanos(1));
                expired(requester);
            }
        });
        for _ in 0..20_000 {
            let options = RequestOptions {
                timeout: Duration::from_nanos(1),
                ..RequestOptions::default()
            };
            requester.request(ACTOR, "p", b"", options).unwrap();
        }
        done.store(true, Ordering::Relaxed);
    });
    c.advance_ms(1);
    expired(requester);
    assert_eq!(requester.pending_requests(), 0, "every request timed out");
}
