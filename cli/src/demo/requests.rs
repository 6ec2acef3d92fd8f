//! g. Request/reply through a relocation (spec §4), on the demo's own
//! three nodes and store (embedded or `--store`): spot kiosk-6 on node-c
//! sends requests to actor account-5, the owner answers each on the reply
//! route the request carries (no lookup of the requester), and every
//! request ends with exactly one terminal result, even when the actor moves
//! with a request in flight, when one times out and is answered late, and
//! when one is cancelled.
//!
//! The scene plays the hosts' transport: it carries each frame to the node
//! its [`Outbound`] names and acts on what [`Runtime::on_frame`] decides.
//!
//! [`Runtime::on_frame`]: zlink_core::Runtime::on_frame

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Value, json};
use zlink_core::wire::{Operation, ReplyResult, ReplyRoute};
use zlink_core::{
    Completion, CorrelationId, Inbound, KeyRef, ObjectKey, ObjectKind, OperationId, Outbound,
    Outcome, RequestOptions, Requested, SpotExecution, Stats,
};

use super::cluster::{Cluster, Node, Time};
use super::{DemoResult, Narrator, Unexpected};

/// The actor that answers.
const ACCOUNT: &str = "account-5";
/// The spot whose execution sends the requests.
const KIOSK: &str = "kiosk-6";
/// The timeout of the requests meant to be answered: far longer than the
/// scene takes on either clock.
const TIMEOUT: Duration = Duration::from_secs(5);
/// The timeout of the request meant to time out: short, since on Redis the
/// scene really waits for it.
const SHORT_TIMEOUT: Duration = Duration::from_millis(200);

/// The terminal result kinds, as `Outcome::kind` spells them.
const KINDS: [&str; 5] = ["Reply", "Error", "Timeout", "Cancelled", "Shutdown"];

/// What the scene saw at the requester.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Tally {
    /// Every request sent, with the terminal results it got (in order).
    results: BTreeMap<CorrelationId, Vec<&'static str>>,
    /// Results that arrived after their request had ended (`Inbound::Late`).
    late: u64,
}

impl Tally {
    fn sent(&mut self, correlation: CorrelationId) {
        self.results.entry(correlation).or_default();
    }

    fn ended(&mut self, done: &Completion) {
        self.results
            .entry(done.correlation)
            .or_default()
            .push(done.outcome.kind());
    }

    /// Requests sent.
    pub(super) fn requests(&self) -> u64 {
        self.results.len() as u64
    }

    /// Terminal results by kind, every kind listed.
    pub(super) fn by_kind(&self) -> BTreeMap<&'static str, u64> {
        let mut counts: BTreeMap<&'static str, u64> = KINDS.iter().map(|&k| (k, 0)).collect();
        for kind in self.results.values().flatten() {
            *counts.entry(kind).or_default() += 1;
        }
        counts
    }

    /// Requests that got more than one terminal result (must be 0).
    pub(super) fn double_completions(&self) -> u64 {
        self.results.values().filter(|r| r.len() > 1).count() as u64
    }

    /// Requests still without a terminal result (must be 0).
    fn unfinished(&self) -> u64 {
        self.results.values().filter(|r| r.is_empty()).count() as u64
    }

    /// The `--json` keys: `requests`, `terminal_results` (by kind),
    /// `double_completions` (requests completed twice) and
    /// `late_results_dropped` (results that came after a request's terminal
    /// one: dropped and counted, not a second completion).
    pub(super) fn json(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("requests".into(), json!(self.requests()));
        map.insert("terminal_results".into(), json!(self.by_kind()));
        map.insert(
            "double_completions".into(),
            json!(self.double_completions()),
        );
        map.insert("late_results_dropped".into(), json!(self.late));
        map
    }
}

/// A request on its way.
struct Asked {
    label: &'static str,
    correlation: CorrelationId,
    operation_id: OperationId,
    frame: Outbound,
}

/// The scene's state: the cluster, the requester's execution, the tally.
struct Play<'a> {
    cl: &'a Cluster,
    origin: SpotExecution,
    tally: Tally,
}

impl Play<'_> {
    /// The requester: node-c.
    fn requester(&self) -> &Node {
        &self.cl.c
    }

    /// kiosk-6 on node-c sends request `label` (also its payload).
    fn ask(&mut self, label: &'static str, timeout: Duration) -> DemoResult<Asked> {
        let options = RequestOptions {
            timeout,
            origin: Some(self.origin.clone()),
            ..RequestOptions::default()
        };
        match self
            .requester()
            .rt
            .request(ObjectKind::Actor, ACCOUNT, label.as_bytes(), options)?
        {
            Requested::Submitted {
                correlation,
                operation_id,
                outbound,
            } => {
                self.tally.sent(correlation);
                Ok(Asked {
                    label,
                    correlation,
                    operation_id,
                    frame: outbound,
                })
            }
            other => Err(Unexpected(format!("request {label} was not sent: {other:?}")).into()),
        }
    }

    /// Carries one frame from `from` to the node it names; that node
    /// decides, knowing (as a host's connection does) which node sent it.
    fn carry(&self, from: &Node, frame: &Outbound) -> DemoResult<(&Node, Inbound)> {
        let node = self.cl.by_rid(frame.to.rid)?;
        let sender = from.rt.identity().rid;
        Ok((node, node.rt.on_frame(sender, &frame.bytes)))
    }

    /// Carries `frame` of request `q` and expects `at` to deliver it after
    /// `hops` Message Follow hops, identity and reply route intact.
    fn deliver(
        &self,
        q: &Asked,
        from: &Node,
        frame: &Outbound,
        at: &Node,
        hops: u8,
    ) -> DemoResult<Operation> {
        let label = q.label;
        let (node, inbound) = self.carry(from, frame)?;
        let Inbound::Deliver(delivery) = inbound else {
            return Err(Unexpected(format!(
                "{} should deliver {label}, got {inbound:?}",
                node.name
            ))
            .into());
        };
        let op = delivery.operation;
        ensure!(
            node.name == at.name,
            "{label} should reach {}, reached {}",
            at.name,
            node.name
        );
        ensure!(
            op.operation_id == q.operation_id && op.payload == label.as_bytes(),
            "{label} arrived as another operation: {op:?}"
        );
        let route = ReplyRoute {
            node: self.requester().rt.node_ref(),
            correlation: q.correlation,
        };
        ensure!(
            op.reply_route == Some(route),
            "{label}'s reply route should be node-c + its correlation, got {:?}",
            op.reply_route
        );
        ensure!(
            op.hop_count == hops,
            "{label} should arrive after {hops} hops, took {}",
            op.hop_count
        );
        Ok(op)
    }

    /// The actor's handler on `node`: answers `op` on its reply route.
    /// Checks the answer goes to the requester without `node` reading the
    /// store or its cache, and that it never learnt a route to the
    /// requesting spot.
    fn answer(&self, node: &Node, op: &Operation) -> DemoResult<Outbound> {
        let before = node.rt.stats();
        let text = format!(
            "{} answered by {}",
            String::from_utf8_lossy(&op.payload),
            node.name
        );
        let reply = node.rt.reply(op, ReplyResult::Ok(text.into_bytes()))?;
        untouched(node, &before, "answering")?;
        ensure!(
            reply.to == self.requester().rt.node_ref(),
            "the reply should go to node-c, goes to {:?}",
            reply.to
        );
        ensure!(
            node.rt.lookup_cached(ObjectKind::Spot, KIOSK)?.is_none(),
            "{} should never have looked up spot {KIOSK}",
            node.name
        );
        Ok(reply)
    }

    /// Checks a completion is request `q`'s, resuming kiosk-6's execution,
    /// with outcome `want`; records it.
    fn record(&mut self, q: &Asked, done: Completion, want: &Outcome) -> DemoResult<Completion> {
        let label = q.label;
        ensure!(
            done.correlation == q.correlation && done.operation_id == q.operation_id,
            "{label}'s result came under another correlation: {done:?}"
        );
        ensure!(
            done.origin.as_ref() == Some(&self.origin) && !done.origin_gone,
            "{label} should resume kiosk-6's execution: {done:?}"
        );
        self.tally.ended(&done);
        ensure!(
            &done.outcome == want,
            "{label} should end {want:?}, ended {:?}",
            done.outcome
        );
        Ok(done)
    }

    /// Carries the reply to `q` and expects it to complete `q` with `want`.
    fn complete(
        &mut self,
        q: &Asked,
        from: &Node,
        reply: &Outbound,
        want: &str,
    ) -> DemoResult<Completion> {
        match self.carry(from, reply)?.1 {
            Inbound::Completed(done) => {
                self.record(q, done, &Outcome::Reply(want.as_bytes().to_vec()))
            }
            other => Err(Unexpected(format!(
                "{}'s reply should complete it, got {other:?}",
                q.label
            ))
            .into()),
        }
    }

    /// Carries a reply to `q`, which has ended: it must be dropped as late.
    fn late(&mut self, q: &Asked, from: &Node, reply: &Outbound) -> DemoResult {
        match self.carry(from, reply)?.1 {
            Inbound::Late { correlation } if correlation == q.correlation => {
                self.tally.late += 1;
                Ok(())
            }
            other => Err(Unexpected(format!(
                "{} already ended: its reply should be Late, got {other:?}",
                q.label
            ))
            .into()),
        }
    }
}

/// Fails unless `node` read neither its store nor its cache since `before`.
fn untouched(node: &Node, before: &Stats, doing: &str) -> DemoResult {
    let now = node.rt.stats();
    ensure!(
        now.store_reads == before.store_reads
            && now.cache_hits == before.cache_hits
            && now.cache_misses == before.cache_misses,
        "{} looked something up while {doing}: store reads {} -> {}, cache hits {} -> {}, misses {} -> {}",
        node.name,
        before.store_reads,
        now.store_reads,
        before.cache_hits,
        now.cache_hits,
        before.cache_misses,
        now.cache_misses
    );
    Ok(())
}

/// g. Requests to an actor, answered on their reply route, through a
/// relocation; one times out (then is answered late), one is cancelled.
pub(super) fn scene(cl: &Cluster, n: &Narrator) -> DemoResult {
    n.scene("g. request/reply through a relocation");
    let (a, b, c) = (&cl.a, &cl.b, &cl.c);
    a.rt.activate(ObjectKind::Actor, ACCOUNT)?;
    let kiosk = c.rt.activate(ObjectKind::Spot, KIOSK)?;
    n.say(format_args!(
        "on the same three nodes and store: node-a activates actor {ACCOUNT}; spot {KIOSK} on node-c sends it requests q1..q4"
    ));
    n.say("(each request carries a reply route, node-c + a correlation; kiosk-6's execution and object gen stay with it on node-c)");
    let mut play = Play {
        cl,
        origin: SpotExecution {
            spot: ObjectKey::new(ObjectKind::Spot, KIOSK)?,
            object_generation: kiosk.object_generation,
        },
        tally: Tally::default(),
    };

    // q1: a plain round trip.
    let reads = c.rt.stats().store_reads;
    let q1 = play.ask("q1", TIMEOUT)?;
    ensure!(
        q1.frame.to.rid == a.rt.identity().rid && c.rt.stats().store_reads == reads + 1,
        "q1 should go to node-a after one store read on node-c"
    );
    let op = play.deliver(&q1, c, &q1.frame, a, 0)?;
    let reply = play.answer(a, &op)?;
    n.say(format_args!(
        "q1 -> node-a (node-c resolved {ACCOUNT} from the store); node-a answers with Runtime::reply on q1's reply route"
    ));
    n.say(format_args!(
        "node-a read neither store nor cache to answer, and has no route to spot {KIOSK}: the requester is never looked up"
    ));
    let done = play.complete(&q1, a, &reply, "q1 answered by node-a")?;
    n.say(format_args!(
        "q1 completes at node-c: {}",
        describe(&done.outcome)
    ));

    // q2: in flight while the actor moves; relayed, answered by the new owner.
    let q2 = play.ask("q2", TIMEOUT)?;
    ensure!(
        q2.frame.to.rid == a.rt.identity().rid,
        "q2 should leave on node-c's cached route to node-a"
    );
    let key = KeyRef {
        kind: ObjectKind::Actor,
        id: ACCOUNT,
    };
    let from =
        a.rt.owned(key)
            .ok_or_else(|| Unexpected(format!("node-a should own {ACCOUNT}")))?;
    let moved = super::moves::relocate(&a.rt, &b.rt, key.kind, ACCOUNT)?.owned;
    n.say(format_args!(
        "q2 leaves node-c on its cached route to node-a; while it is in flight {ACCOUNT} moves: node-b commits (owner gen {} -> {}), node-a keeps a Message Follow route to node-b",
        from.authority_owner_generation, moved.authority_owner_generation,
    ));
    let before = a.rt.stats();
    let (forward, notice) = match play.carry(c, &q2.frame)? {
        (_, Inbound::Relay { forward, notice }) => (forward, notice),
        (_, other) => {
            return Err(Unexpected(format!("node-a should relay q2, got {other:?}")).into());
        }
    };
    untouched(a, &before, "relaying")?;
    let op = play.deliver(&q2, a, &forward, b, 1)?;
    let reply = play.answer(b, &op)?;
    n.say("node-a relays q2 to node-b (1 hop) without reading the store: same operation, same reply route and correlation");
    n.say("node-b answers on that route, no lookup either");
    let done = play.complete(&q2, b, &reply, "q2 answered by node-b")?;
    n.say(format_args!(
        "q2 completes once at node-c, under its own correlation: {}",
        describe(&done.outcome)
    ));
    let notice =
        notice.ok_or_else(|| Unexpected("node-a should notify node-c of the relay".into()))?;
    let refreshed = play.carry(a, &notice.outbound)?;
    a.rt.notice_settled(&notice.token, true);
    ensure!(
        refreshed.0.name == c.name
            && refreshed.1 == Inbound::RouteRefreshed { invalidated: true }
            && c.rt.lookup_cached(key.kind, ACCOUNT)?.is_none(),
        "node-a's notification should drop node-c's cached route, got {:?} at {}",
        refreshed.1,
        refreshed.0.name
    );
    n.say("node-a's relay notification (command 50) makes node-c drop its cached route to node-a");

    // q3: never answered in time.
    let reads = c.rt.stats().store_reads;
    let q3 = play.ask("q3", SHORT_TIMEOUT)?;
    ensure!(
        q3.frame.to.rid == b.rt.identity().rid && c.rt.stats().store_reads == reads + 1,
        "q3 should go to node-b after one store read on node-c"
    );
    let op = play.deliver(&q3, c, &q3.frame, b, 0)?;
    n.say(format_args!(
        "q3 (timeout {SHORT_TIMEOUT:?}) -> node-b, resolved afresh; node-b holds it unanswered"
    ));
    let wait = SHORT_TIMEOUT + cl.time.margin();
    cl.time.advance(wait);
    let mut expired = Vec::new();
    for node in cl.nodes() {
        // Time reaches a runtime only through its one timer surface.
        let now = node.rt.now();
        if node.rt.next_deadline().is_some_and(|at| at <= now) {
            expired.extend(node.rt.on_timeout(now).into_iter().filter_map(|a| match a {
                Inbound::Completed(d) => Some((node.name, d)),
                _ => None,
            }));
        }
    }
    let Ok([(at, done)]) = <[_; 1]>::try_from(expired) else {
        return Err(Unexpected("exactly q3 should expire, on node-c".into()).into());
    };
    ensure!(at == c.name, "q3 should expire on node-c, expired on {at}");
    play.record(&q3, done, &Outcome::Timeout)?;
    let how = match cl.time {
        Time::Manual(_) => "the manual clock moved",
        Time::Real(_) => "the demo waited",
    };
    n.say(format_args!(
        "{}: past q3's deadline ({how} {wait:?}), node-c's next_deadline is due: on_timeout -> q3 {}",
        cl.time.stamp(),
        Outcome::Timeout.kind()
    ));
    let reply = play.answer(b, &op)?;
    play.late(&q3, b, &reply)?;
    n.say("node-b answers q3 after all: the reply reaches node-c Late, dropped and counted; q3 stays Timeout");

    // q4: cancelled with its frame in flight.
    let q4 = play.ask("q4", TIMEOUT)?;
    let done =
        c.rt.cancel(q4.correlation)
            .ok_or_else(|| Unexpected("q4 was pending: cancel should end it".into()))?;
    play.record(&q4, done, &Outcome::Cancelled)?;
    let op = play.deliver(&q4, c, &q4.frame, b, 0)?;
    let reply = play.answer(b, &op)?;
    play.late(&q4, b, &reply)?;
    n.say("q4 -> node-b; node-c cancels it while the frame is in flight -> q4 Cancelled");
    n.say("node-b still gets q4 and answers: that reply reaches node-c Late, dropped and counted");

    check(cl, &play.tally)?;
    let by_kind = play.tally.by_kind();
    let kinds: Vec<String> = KINDS
        .iter()
        .map(|k| format!("{k} {}", by_kind[k]))
        .collect();
    n.say(format_args!(
        "{} requests, one terminal result each ({}); completed twice: {}; late results dropped: {}; none pending",
        play.tally.requests(),
        kinds.join(", "),
        play.tally.double_completions(),
        play.tally.late,
    ));
    cl.requests
        .set(play.tally)
        .map_err(|_| Unexpected("the request/reply scene ran twice".into()))?;
    Ok(())
}

/// `Reply "q1 answered by node-a"`.
fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Reply(bytes) => format!("Reply {:?}", String::from_utf8_lossy(bytes)),
        other => other.kind().to_owned(),
    }
}

/// The scene's totals: what it saw agrees with the runtimes' counters, and
/// every request ended exactly once.
fn check(cl: &Cluster, tally: &Tally) -> DemoResult {
    let stats: Vec<Stats> = cl.nodes().iter().map(|n| n.rt.stats()).collect();
    let sum = |f: fn(&Stats) -> u64| -> u64 { stats.iter().map(f).sum() };
    let pending: usize = cl.nodes().iter().map(|n| n.rt.pending_requests()).sum();
    ensure!(pending == 0, "{pending} requests still pending");
    ensure!(
        tally.unfinished() == 0,
        "{} requests without a terminal result",
        tally.unfinished()
    );
    ensure!(
        tally.double_completions() == 0,
        "{} requests completed twice",
        tally.double_completions()
    );
    let by_kind = tally.by_kind();
    let want: BTreeMap<&str, u64> = [
        ("Reply", 2),
        ("Error", 0),
        ("Timeout", 1),
        ("Cancelled", 1),
        ("Shutdown", 0),
    ]
    .into();
    ensure!(
        by_kind == want,
        "terminal results {by_kind:?}, wanted {want:?}"
    );
    let counted: BTreeMap<&str, u64> = [
        ("Reply", sum(|s| s.requests.replies)),
        ("Error", sum(|s| s.requests.errors)),
        ("Timeout", sum(|s| s.requests.timeouts)),
        ("Cancelled", sum(|s| s.requests.cancelled)),
        ("Shutdown", sum(|s| s.requests.shutdown)),
    ]
    .into();
    ensure!(
        counted == by_kind,
        "the runtimes counted {counted:?}, the requester saw {by_kind:?}"
    );
    ensure!(
        sum(|s| s.requests.sent) == tally.requests() && tally.requests() == 4,
        "the runtimes counted {} requests sent, the scene sent {}",
        sum(|s| s.requests.sent),
        tally.requests()
    );
    // The core's `double_completions` counter counts results that arrived
    // after the terminal one (dropped), not requests completed twice.
    let late = sum(|s| s.requests.late_results);
    ensure!(
        late == tally.late && late == 2,
        "the runtimes counted {late} late results, the requester saw {}",
        tally.late
    );
    ensure!(
        sum(|s| s.requests.unroutable) == 0,
        "no request should lose its reply route"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn completion(correlation: u64, outcome: Outcome) -> Completion {
        Completion {
            correlation: CorrelationId(correlation),
            operation_id: OperationId(correlation),
            target: ObjectKey::new(ObjectKind::Actor, ACCOUNT).expect("a valid ID"),
            outcome,
            origin: None,
            origin_gone: false,
        }
    }

    #[test]
    fn a_request_ended_twice_is_a_double_completion_and_a_late_result_is_not() {
        let mut tally = Tally::default();
        for c in 1..=3 {
            tally.sent(CorrelationId(c));
        }
        tally.ended(&completion(1, Outcome::Reply(b"x".to_vec())));
        tally.ended(&completion(2, Outcome::Timeout));
        tally.late += 1;
        assert_eq!(tally.double_completions(), 0);
        assert_eq!(tally.unfinished(), 1);
        tally.ended(&completion(2, Outcome::Cancelled));
        assert_eq!(tally.double_completions(), 1);
        let json = Value::Object(tally.json());
        assert_eq!(json["requests"], 3);
        assert_eq!(json["double_completions"], 1);
        assert_eq!(json["late_results_dropped"], 1);
        assert_eq!(
            json["terminal_results"],
            json!({"Reply": 1, "Error": 0, "Timeout": 1, "Cancelled": 1, "Shutdown": 0})
        );
    }
}
