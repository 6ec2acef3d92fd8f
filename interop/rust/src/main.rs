//! The Rust host of the interop run (docs/interop.md): a small Spot runtime
//! over zlink-core, in-process. It owns Actors (each records the payloads it
//! receives and answers requests with "re:" + payload), moves frames over
//! TCP (the framing of docs/interop.md) and asks zlink for every routing
//! decision. One thread runs everything from one channel (frames, commands,
//! timers), so Actors need no locks; reader threads only queue what arrives.
//!
//! `zlink-interop-host NAME RID REDIS_URL` (commands on stdin, answers on
//! stdout).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};
use zlink_core::wire::{NodeRef, Operation, RelayKind, ReplyResult};
use zlink_core::{
    Capture, CorrelationId, Inbound, MeshName, NodeGeneration, NodeIdentity, NodeRid, ObjectKind,
    Outbound, Outcome, OwnerLeaseGeneration, RedisStore, RelocationAction, RelocationEvent,
    RequestOptions, Requested, Runtime, SendOptions, Sent, SessionEvent,
};

/// What the loop thread is woken for.
enum Input {
    Frame(u64, Vec<u8>),
    Command(String),
}

/// Length-prefixed frames over TCP: arrivals go to the loop's channel.
struct Transport {
    rid: u64,
    ports: HashMap<u64, u16>,
    conns: HashMap<u64, TcpStream>,
}

impl Transport {
    /// Listens on a free loopback port; each accepted connection gets a reader thread.
    fn listen(inbox: Sender<Input>) -> std::io::Result<u16> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let port = listener.local_addr()?.port();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let inbox = inbox.clone();
                thread::spawn(move || Self::read(stream, &inbox));
            }
        });
        Ok(port)
    }

    fn read(mut stream: TcpStream, inbox: &Sender<Input>) -> Option<()> {
        let mut hello = [0u8; 8];
        stream.read_exact(&mut hello).ok()?;
        let from = u64::from_be_bytes(hello);
        loop {
            let mut head = [0u8; 4];
            stream.read_exact(&mut head).ok()?;
            let mut frame = vec![0u8; u32::from_be_bytes(head) as usize];
            stream.read_exact(&mut frame).ok()?;
            inbox.send(Input::Frame(from, frame)).ok()?;
        }
    }

    /// Sends one frame to node `to`; false if it cannot be reached.
    fn send(&mut self, to: u64, frame: &[u8]) -> bool {
        let sent = (|| -> std::io::Result<()> {
            if !self.conns.contains_key(&to) {
                let port = self
                    .ports
                    .get(&to)
                    .copied()
                    .ok_or(std::io::ErrorKind::NotFound)?;
                let mut s = TcpStream::connect((Ipv4Addr::LOCALHOST, port))?;
                s.set_nodelay(true)?;
                s.write_all(&self.rid.to_be_bytes())?;
                self.conns.insert(to, s);
            }
            let conn = self
                .conns
                .get_mut(&to)
                .ok_or(std::io::ErrorKind::NotFound)?;
            let len = u32::try_from(frame.len()).map_err(|_| std::io::ErrorKind::InvalidInput)?;
            conn.write_all(&len.to_be_bytes())?;
            conn.write_all(frame)
        })();
        if sent.is_err() {
            self.conns.remove(&to);
        }
        sent.is_ok()
    }
}

/// The host: a runtime, its Actors and the tally.
struct Host {
    name: String,
    rid: u64,
    rt: Runtime,
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
    fn handle(&mut self, d: Inbound) {
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

    fn tick(&mut self) {
        if self.rt.next_deadline().is_some_and(|d| d <= self.rt.now()) {
            for d in self.rt.on_timeout(self.rt.now()) {
                self.handle(d);
            }
        }
    }

    /// One command line; the fields of its answer.
    fn command(&mut self, words: &[&str]) -> Result<Value, String> {
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

fn run(name: &str, rid: u64, url: &str) -> Result<(), String> {
    let store = RedisStore::open(url).map_err(|e| e.to_string())?;
    let identity = NodeIdentity {
        mesh: MeshName::new("interop").map_err(|e| e.to_string())?,
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(1),
    };
    let rt = Runtime::builder(identity)
        .store(Arc::new(store))
        .build()
        .map_err(|e| e.to_string())?;
    let (inbox, arrivals) = mpsc::channel();
    let port = Transport::listen(inbox.clone()).map_err(|e| e.to_string())?;
    let stdin_inbox = inbox.clone();
    thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if stdin_inbox.send(Input::Command(line)).is_err() {
                return;
            }
        }
        let _ = stdin_inbox.send(Input::Command("quit".to_owned()));
    });
    let mut host = Host {
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
    };
    let say = |v: Value| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{v}");
        let _ = out.flush();
    };
    say(json!({ "ok": true, "port": port }));
    loop {
        let now = host.rt.now();
        let wait = host
            .rt
            .next_deadline()
            .map_or(Duration::from_millis(10), |d| {
                Duration::from_nanos(d.0.saturating_sub(now.0)).min(Duration::from_millis(10))
            });
        match arrivals.recv_timeout(wait) {
            Ok(Input::Frame(from, frame)) => {
                let d = host.rt.on_frame(NodeRid(from), &frame);
                host.handle(d);
            }
            Ok(Input::Command(line)) => {
                let words: Vec<&str> = line.split_whitespace().collect();
                if words.first().is_none_or(|w| *w == "quit") {
                    say(json!({ "ok": true }));
                    return Ok(());
                }
                say(match host.command(&words) {
                    Ok(Value::Object(mut fields)) => {
                        fields.insert("ok".to_owned(), json!(true));
                        Value::Object(fields)
                    }
                    Ok(other) => json!({ "ok": true, "value": other }),
                    Err(e) => json!({ "ok": false, "error": e }),
                });
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        }
        host.tick();
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, name, rid, url] = args.as_slice() else {
        eprintln!("usage: zlink-interop-host NAME RID REDIS_URL");
        return ExitCode::from(2);
    };
    let Ok(rid) = rid.parse() else {
        eprintln!("zlink-interop-host: bad RID {rid}");
        return ExitCode::from(2);
    };
    match run(name, rid, url) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("zlink-interop-host: {e}");
            ExitCode::FAILURE
        }
    }
}
