//! The host's state: a runtime, the Actors it owns (each records the
//! payloads it receives and answers requests with "re:" + payload), and the
//! tally the coordinator reads; each routing decision zlink returns is
//! carried out here.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::mpsc::Sender;

use serde_json::{Value, json};
use zlink_core::wire::{NodeRef, Operation, RelayKind, ReplyResult};
use zlink_core::{
    Capture, CorrelationId, Inbound, NodeGeneration, NodeRid, ObjectKind, Outbound, Outcome,
    RelocationAction, RelocationEvent, RequestOptions, Requested, Runtime, SendOptions, Sent,
    SessionEvent,
};

use super::transport::{Input, Transport};

/// The host: a runtime, its Actors and the tally.
pub(super) struct Host {
    name: String,
    rid: u64,
    pub(super) rt: Runtime,
    transport: Transport,
    inbox: Sender<Input>,
    /// Actor ID -> payloads received, in order: the state that moves.
    actors: HashMap<String, Vec<String>>,
    /// Actors that run here now.
    live: HashSet<String>,
    seq: u64,
    sent_m: Vec<u64>,
    sent_q: Vec<u64>,
    /// Correlation -> request payload.
    asked: HashMap<CorrelationId, String>,
    outcomes: HashMap<CorrelationId, Vec<Outcome>>,
    delivered: u64,
    relayed: u64,
    notices: u64,
    stray: u64,
    held: u64,
    /// Asking host -> requests answered here.
    replied: BTreeMap<String, u64>,
    events: Vec<String>,
    errors: Vec<String>,
}

impl Host {
    /// A host named `name` (its language) with routing ID `rid`.
    pub(super) fn new(name: &str, rid: u64, rt: Runtime, inbox: Sender<Input>) -> Host {
        Host {
            name: name.to_owned(),
            rid,
            rt,
            transport: Transport {
                rid,
                ports: HashMap::new(),
                conns: HashMap::new(),
            },
            inbox,
            actors: HashMap::new(),
            live: HashSet::new(),
            seq: 0,
            sent_m: vec![],
            sent_q: vec![],
            asked: HashMap::new(),
            outcomes: HashMap::new(),
            delivered: 0,
            relayed: 0,
            notices: 0,
            stray: 0,
            held: 0,
            replied: BTreeMap::new(),
            events: vec![],
            errors: vec![],
        }
    }

    fn node(&self, rid: u64) -> NodeRef {
        let me = self.rt.node_ref();
        NodeRef {
            mesh: me.mesh,
            rid: NodeRid(rid),
            generation: NodeGeneration(1),
        }
    }

    /// Carries a frame: to this node's own loop, or over TCP.
    fn carry(&mut self, o: &Outbound) -> bool {
        if o.to.rid.get() == self.rid {
            return self
                .inbox
                .send(Input::Frame(self.rid, o.bytes.clone()))
                .is_ok();
        }
        self.transport.send(o.to.rid.get(), &o.bytes)
    }

    /// Does what one decision says.
    pub(super) fn handle(&mut self, d: Inbound) {
        match d {
            Inbound::Deliver(delivery) => self.receive(&delivery.operation),
            Inbound::Relay { forward, notice } => {
                self.relayed += 1;
                self.carry(&forward);
                if let Some(n) = notice {
                    let sent = self.carry(&n.outbound);
                    self.rt.notice_settled(&n.token, sent);
                }
            }
            Inbound::Reject(out) => {
                self.carry(&out);
            }
            Inbound::Send(outs) => {
                for o in &outs {
                    self.carry(o);
                }
            }
            Inbound::Completed(c) => self
                .outcomes
                .entry(c.correlation)
                .or_default()
                .push(c.outcome),
            Inbound::SessionDeliver(s) => {
                if s.kind == RelayKind::Message {
                    self.record(s.actor.id(), &String::from_utf8_lossy(&s.payload));
                }
            }
            Inbound::RouteRefreshed { .. } => self.notices += 1,
            Inbound::Relocation(r) => self.relocation(r),
            Inbound::Held => self.held += 1,
            Inbound::Session(SessionEvent::Bound { .. } | SessionEvent::Sealed { .. }) => {}
            other => self.errors.push(format!("{other:?}")),
        }
    }

    fn record(&mut self, actor: &str, payload: &str) -> bool {
        match self.actors.get_mut(actor) {
            Some(seen) if self.live.contains(actor) => {
                seen.push(payload.to_owned());
                self.delivered += 1;
                true
            }
            _ => {
                self.stray += 1;
                self.errors.push(format!(
                    "delivered {payload} for {actor}, which does not run here"
                ));
                false
            }
        }
    }

    /// An operation for a local Actor: it records the payload and answers a request.
    fn receive(&mut self, op: &Operation) {
        let payload = String::from_utf8_lossy(&op.payload).into_owned();
        if self.record(op.target.id(), &payload) && op.reply_route.is_some() {
            match self
                .rt
                .reply(op, ReplyResult::Ok(format!("re:{payload}").into_bytes()))
            {
                Ok(out) => {
                    self.carry(&out);
                    let asker = payload.split('|').next().unwrap_or("?").to_owned();
                    *self.replied.entry(asker).or_default() += 1;
                }
                Err(e) => self.errors.push(format!("reply {payload}: {e}")),
            }
        }
    }

    /// A relocation step: restore on the target, drop on the source, deliver what it hands over.
    fn relocation(&mut self, r: RelocationAction) {
        let name = format!("{:?}", r.event);
        self.events
            .push(name.split([' ', '{', '(']).next().unwrap_or("?").to_owned());
        match &r.event {
            RelocationEvent::Restore {
                identity, state, ..
            } => {
                let id = identity.key.id().to_owned();
                let state = String::from_utf8_lossy(state);
                let seen = if state.is_empty() {
                    vec![]
                } else {
                    state.split('\n').map(str::to_owned).collect()
                };
                self.actors.insert(id.clone(), seen);
                match self.rt.relocation_restored(ObjectKind::Actor, &id) {
                    Ok(outs) => outs.iter().for_each(|o| {
                        self.carry(o);
                    }),
                    Err(e) => self.errors.push(format!("relocation_restored: {e}")),
                }
            }
            RelocationEvent::Committed { identity, .. }
            | RelocationEvent::Aborted { identity, .. }
                if self.actors.contains_key(identity.key.id()) =>
            {
                self.live.insert(identity.key.id().to_owned());
            }
            RelocationEvent::HandedOff { identity, .. }
            | RelocationEvent::Failed { identity, .. } => {
                self.live.remove(identity.key.id());
                self.actors.remove(identity.key.id());
            }
            _ => {}
        }
        for d in &r.deliver {
            self.receive(&d.operation);
        }
        for s in r.session {
            self.handle(Inbound::SessionDeliver(s));
        }
        for o in &r.send {
            self.carry(o);
        }
        match r.event {
            RelocationEvent::CommitDue { .. } => self.tick(),
            RelocationEvent::Aborting { .. }
            | RelocationEvent::Aborted { .. }
            | RelocationEvent::Failed { .. } => {
                self.errors.push(name);
            }
            _ => {}
        }
    }

    pub(super) fn tick(&mut self) {
        if self.rt.next_deadline().is_some_and(|d| d <= self.rt.now()) {
            for d in self.rt.on_timeout(self.rt.now()) {
                self.handle(d);
            }
        }
    }

    /// One command line; the fields of its answer.
    pub(super) fn command(&mut self, words: &[&str]) -> Result<Value, String> {
        match words {
            ["peers", peers @ ..] => {
                for p in peers {
                    let (rid, port) = p.split_once('=').ok_or("peers: RID=PORT")?;
                    let rid = rid.parse().map_err(|_| "peers: bad RID")?;
                    let port = port.parse().map_err(|_| "peers: bad PORT")?;
                    self.transport.ports.insert(rid, port);
                }
            }
            ["activate", actor] => {
                self.rt
                    .activate(ObjectKind::Actor, actor)
                    .map_err(|e| e.to_string())?;
                self.actors.insert((*actor).to_owned(), vec![]);
                self.live.insert((*actor).to_owned());
            }
            ["send", actor, count] => {
                let count: u64 = count.parse().map_err(|_| "send: bad COUNT")?;
                for _ in 0..count {
                    self.send(actor);
                }
            }
            ["move", actor, target] => {
                let target = self.node(target.parse().map_err(|_| "move: bad RID")?);
                let state = self
                    .actors
                    .get(*actor)
                    .ok_or("move: no such actor")?
                    .join("\n");
                self.live.remove(*actor);
                let capture = Capture {
                    saved: vec![],
                    state: state.into_bytes(),
                };
                let started = self
                    .rt
                    .begin_relocation(ObjectKind::Actor, actor, target, capture)
                    .map_err(|e| e.to_string())?;
                for o in &started.send {
                    self.carry(o);
                }
            }
            ["status", actor] => return Ok(json!({ "owns": self.live.contains(*actor) })),
            ["tally", actor] => return Ok(self.tally(actor)),
            _ => return Err(format!("unknown command {}", words.join(" "))),
        }
        Ok(json!({}))
    }

    fn send(&mut self, actor: &str) {
        let seq = self.seq;
        self.seq += 1;
        let request = seq % 3 == 2;
        let payload = format!("{}|{}|{seq}", self.name, if request { 'q' } else { 'm' });
        let submitted = if request {
            match self.rt.request(
                ObjectKind::Actor,
                actor,
                payload.as_bytes(),
                RequestOptions::default(),
            ) {
                Ok(Requested::Submitted {
                    correlation,
                    outbound,
                    ..
                }) => {
                    self.asked.insert(correlation, payload.clone());
                    Ok(outbound)
                }
                other => Err(format!("{other:?}")),
            }
        } else {
            match self.rt.send(
                ObjectKind::Actor,
                actor,
                payload.as_bytes(),
                SendOptions::default(),
            ) {
                Ok(Sent::Submitted { outbound, .. }) => Ok(outbound),
                other => Err(format!("{other:?}")),
            }
        };
        match submitted {
            Ok(out) if self.carry(&out) => {
                if request {
                    &mut self.sent_q
                } else {
                    &mut self.sent_m
                }
                .push(seq);
            }
            Ok(out) => self
                .errors
                .push(format!("send {payload}: cannot reach node {}", out.to.rid)),
            Err(e) => self.errors.push(format!("send {payload}: {e}")),
        }
    }

    fn tally(&self, actor: &str) -> Value {
        let (mut once, mut bad, mut pending) = (0, 0, 0);
        for (corr, payload) in &self.asked {
            match self.outcomes.get(corr).map(Vec::as_slice) {
                Some([Outcome::Reply(p)]) if *p == format!("re:{payload}").into_bytes() => {
                    once += 1
                }
                Some(_) => bad += 1,
                None => pending += 1,
            }
        }
        json!({
            "sent": { "m": self.sent_m, "q": self.sent_q, "s": [] },
            "requests": self.asked.len(),
            "ended_once": once,
            "bad": bad,
            "pending": pending,
            "delivered": self.delivered,
            "relayed": self.relayed,
            "notices": self.notices,
            "stray": self.stray,
            "held": self.held,
            "replied": self.replied,
            "actor": if self.live.contains(actor) { json!(self.actors.get(actor)) } else { Value::Null },
            "events": self.events,
            "errors": self.errors,
        })
    }
}
