//! The latency histograms (`Stats::latencies`): each records where its
//! work waited, once per piece of work, and a cache hit records nothing.

use std::time::Duration;

use zlink_core::mesh::Mesh;
use zlink_core::*;

const ACTOR: ObjectKind = ObjectKind::Actor;

fn latencies(m: &Mesh, rid: u64) -> LatencyStats {
    m.node(rid).stats().latencies
}

#[test]
fn store_calls_are_timed_and_a_cache_hit_is_not() {
    let m = Mesh::new(2, RoutingConfig::default()).expect("mesh");
    m.activate(1, ACTOR, "a").expect("activate");
    // Create, then publish Ready: two authority writes.
    assert_eq!(latencies(&m, 1).store_write.count(), 2);
    assert!(latencies(&m, 1).store_write.sum_ns > 0);
    let resolve = || m.node(2).resolve(ACTOR, "a").expect("valid");
    assert!(matches!(resolve(), Resolution::ReadyRoute(_)));
    assert_eq!(latencies(&m, 2).store_read.count(), 1);
    assert!(matches!(resolve(), Resolution::ReadyRoute(_)));
    assert_eq!(
        latencies(&m, 2).store_read.count(),
        1,
        "a cache hit reads no store and times nothing"
    );
}

#[test]
fn an_answered_request_records_its_round_trip_and_a_timeout_does_not() {
    let mut m = Mesh::new(2, RoutingConfig::default()).expect("mesh");
    m.activate(2, ACTOR, "echo").expect("activate");
    m.request(1, ACTOR, "echo", b"ping", RequestOptions::default())
        .expect("valid");
    // The request reaches node 2, which answers; the reply waits 5 ms.
    assert!(m.step());
    m.advance(Duration::from_millis(5));
    m.run();
    let request = latencies(&m, 1).request;
    assert_eq!(request.count(), 1);
    assert_eq!(request.sum_ns, 5_000_000);
    assert_eq!(request.counts[6], 1, "5 ms is above 2.5 ms, at most 5 ms");

    m.answer_requests(false);
    let options = RequestOptions {
        timeout: Duration::from_millis(100),
        ..RequestOptions::default()
    };
    m.request(1, ACTOR, "echo", b"ping", options)
        .expect("valid");
    m.run();
    m.advance(Duration::from_millis(200));
    assert_eq!(m.node(1).stats().requests.timeouts, 1);
    assert_eq!(
        latencies(&m, 1).request.count(),
        1,
        "a timeout is no answer"
    );
}

#[test]
fn a_bind_and_a_move_record_their_durations() {
    let mut m = Mesh::new(3, RoutingConfig::default()).expect("mesh");
    m.activate(2, ACTOR, "room").expect("activate");
    m.open_session(1, 7);
    let actor = m.actor_ref(2, "room").expect("actor ref");
    m.bind(1, 7, &actor).expect("bind");
    m.run();
    assert_eq!(latencies(&m, 1).bind.count(), 1);

    m.relocate(ACTOR, "room", 2, 3).expect("relocate");
    assert_eq!(latencies(&m, 2).relocation.count(), 1, "the source's move");
    assert_eq!(
        latencies(&m, 3).relocation_held.count(),
        1,
        "the target's hold"
    );
    assert_eq!(latencies(&m, 3).relocation.count(), 0);
    assert_eq!(latencies(&m, 2).relocation_held.count(), 0);
}
