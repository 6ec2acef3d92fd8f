//! The Rust runner of the language-neutral scenario suite
//! (`testdata/scenarios/*.json`, format in its README): plays every file
//! over the core's API as a small host would, and fails naming the
//! scenario and the step that did not give what the file says.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use zlink_core::*;

const LANGUAGE: &str = "rust";

type Res<T = ()> = Result<T, String>;

fn fail<T>(why: impl Into<String>) -> Res<T> {
    Err(why.into())
}

/// One frame in flight.
struct Envelope {
    from: NodeRid,
    to: NodeRid,
    bytes: Vec<u8>,
}

/// A frame filter from a `rule` step.
#[derive(Default)]
struct Matcher {
    command: Option<String>,
    from: Option<u64>,
    to: Option<u64>,
}

impl Matcher {
    fn from_json(v: &Value) -> Option<Matcher> {
        if v.is_null() {
            return None;
        }
        Some(Matcher {
            command: v.get("command").and_then(Value::as_str).map(str::to_owned),
            from: v.get("from").and_then(Value::as_u64),
            to: v.get("to").and_then(Value::as_u64),
        })
    }

    fn matches(&self, e: &Envelope) -> bool {
        self.from.is_none_or(|f| f == e.from.get())
            && self.to.is_none_or(|t| t == e.to.get())
            && self
                .command
                .as_deref()
                .is_none_or(|c| command_number(c) == e.bytes.get(3).copied())
    }
}

/// Where a Message or Request frame holds its target's object kind: after
/// the header and the operation ID (core/src/wire/codec.rs).
const KIND_AT: usize = wire::HEADER_LEN + 8;

/// A command's number (the header's fourth byte) by its name in the wire
/// vectors' JSON (docs/wire.md).
fn command_number(name: &str) -> Option<u8> {
    Some(match name {
        "Message" => 1,
        "Request" => 2,
        "Reply" => 3,
        "Rejection" => 4,
        "SessionBind" => 10,
        "SessionBindReply" => 11,
        "SessionTombstone" => 12,
        "SessionTombstoneAck" => 13,
        "SessionRelay" => 14,
        "SessionPush" => 15,
        "SessionRefused" => 16,
        "SessionRelocationSeal" => 42,
        "SessionRelocationSealed" => 43,
        "SessionRelocationRoute" => 44,
        "RelocationRestore" => 45,
        "RelocationRelayReady" => 46,
        "RelocationCutover" => 47,
        "RelocationCommitted" => 48,
        "RelocationAbort" => 49,
        "MessageFollow" => 50,
        _ => return None,
    })
}

/// Everything that happened, in the form the expectations read.
#[derive(Default)]
struct Ledger {
    delivered: Vec<(OperationId, u64)>,
    ended: Vec<(OperationId, Failure)>,
    completed: Vec<(OperationId, Outcome)>,
    /// (node, tag) in order.
    events: Vec<(u64, String)>,
    late: u64,
    dropped: u64,
    held: u64,
    refreshed: u64,
    invalidated: u64,
}

struct Host {
    reply: bool,
    restore: String,
}

struct Run {
    clock: ManualClock,
    nodes: Vec<Runtime>,
    network: VecDeque<Envelope>,
    held_back: Vec<Envelope>,
    drop_rule: Option<Matcher>,
    hold_rule: Option<Matcher>,
    truncate_rule: Option<Matcher>,
    corrupt_kind_rule: Option<Matcher>,
    names: BTreeMap<String, OperationId>,
    requests: BTreeMap<String, CorrelationId>,
    host: Host,
    ledger: Ledger,
}

fn identity(rid: u64) -> NodeIdentity {
    NodeIdentity {
        mesh: MeshName::new("scenario").expect("a valid mesh name"),
        rid: NodeRid(rid),
        generation: NodeGeneration(1),
        lease: OwnerLeaseGeneration(rid),
    }
}

/// The config keys a scenario may set (README); any other is a mistake in
/// the file, reported rather than ignored.
const CONFIG_KEYS: [&str; 12] = [
    "route_cache_max_age_ms",
    "message_follow_duration_ms",
    "max_follow_hops",
    "session_relocation_seal_timeout_ms",
    "session_bind_timeout_ms",
    "owner_lease_duration_ms",
    "store_timeout_ms",
    "store_attempts",
    "max_object_id_bytes",
    "max_message_bytes",
    "relocation_timeout_ms",
    "max_relocation_state_bytes",
];

fn check_config_keys(v: Option<&Value>) -> Res {
    for key in v
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|o| o.keys())
    {
        if !CONFIG_KEYS.contains(&key.as_str()) {
            return fail(format!("unknown config key {key:?}"));
        }
    }
    Ok(())
}

fn config_of(v: Option<&Value>) -> RoutingConfig {
    let mut c = RoutingConfig::default();
    let Some(v) = v else { return c };
    let ms = |k: &str| v.get(k).and_then(Value::as_u64).map(Duration::from_millis);
    let n = |k: &str| v.get(k).and_then(Value::as_u64);
    if let Some(d) = ms("route_cache_max_age_ms") {
        c.route_cache_max_age = d;
    }
    if let Some(d) = ms("message_follow_duration_ms") {
        c.message_follow_duration = d;
    }
    if let Some(x) = n("max_follow_hops") {
        c.max_follow_hops = x as u8;
    }
    if let Some(d) = ms("session_relocation_seal_timeout_ms") {
        c.session_relocation_seal_timeout = d;
    }
    if let Some(d) = ms("session_bind_timeout_ms") {
        c.session_bind_timeout = d;
    }
    if let Some(d) = ms("owner_lease_duration_ms") {
        c.owner_lease_duration = d;
    }
    if let Some(d) = ms("store_timeout_ms") {
        c.store_timeout = d;
    }
    if let Some(x) = n("store_attempts") {
        c.store_attempts = x as u32;
    }
    if let Some(x) = n("max_object_id_bytes") {
        c.max_object_id_bytes = x as usize;
    }
    if let Some(x) = n("max_message_bytes") {
        c.max_message_bytes = x as usize;
    }
    if let Some(d) = ms("relocation_timeout_ms") {
        c.relocation_timeout = d;
    }
    if let Some(x) = n("max_relocation_state_bytes") {
        c.max_relocation_state_bytes = x as usize;
    }
    c
}

fn config_error_name(e: &ConfigError) -> &'static str {
    match e {
        ConfigError::CacheOutlivesFollow { .. } => "CacheOutlivesFollow",
        ConfigError::FollowHops(_) => "FollowHops",
        ConfigError::ZeroDuration { .. } => "ZeroDuration",
        ConfigError::ZeroCapacity => "ZeroCapacity",
        ConfigError::CapacityAboveBuilt { .. } => "CapacityAboveBuilt",
        ConfigError::ObjectIdCap { .. } => "ObjectIdCap",
        ConfigError::ZeroStoreAttempts => "ZeroStoreAttempts",
        ConfigError::MessageBound { .. } => "MessageBound",
        ConfigError::StateBound { .. } => "StateBound",
    }
}

fn input_error_name(e: &InputError) -> &'static str {
    match e {
        InputError::EmptyObjectId => "EmptyObjectId",
        InputError::ObjectIdTooLong { .. } => "ObjectIdTooLong",
        InputError::EmptyMeshName => "EmptyMeshName",
        InputError::MeshNameTooLong { .. } => "MeshNameTooLong",
        InputError::UnknownObjectKind(_) => "UnknownObjectKind",
        InputError::InstanceIntentOnActor => "InstanceIntentOnActor",
        InputError::PayloadTooLarge { .. } => "PayloadTooLarge",
        InputError::NotACommittedMove(_) => "NotACommittedMove",
        InputError::NotOwned(_) => "NotOwned",
        InputError::BadPeerField { .. } => "BadPeerField",
        InputError::ZeroDeadline => "ZeroDeadline",
    }
}

fn relocation_error_name(e: &RelocationError) -> &'static str {
    match e {
        RelocationError::Input(i) => input_error_name(i),
        RelocationError::NotOwned(_) => "NotOwned",
        RelocationError::TargetIsSelf => "TargetIsSelf",
        RelocationError::AlreadyRelocating(_) => "AlreadyRelocating",
        RelocationError::StateTooLarge { .. } => "StateTooLarge",
        RelocationError::TooManySaved { .. } => "TooManySaved",
        RelocationError::ForeignOperation(_) => "ForeignOperation",
        RelocationError::NotRelocating(_) => "NotRelocating",
        RelocationError::AfterRelayReady => "AfterRelayReady",
        RelocationError::Refused(_) => "Refused",
    }
}

fn session_error_name(e: &SessionError) -> &'static str {
    match e {
        SessionError::UnknownSession(_) => "UnknownSession",
        SessionError::Closing(_) => "Closing",
        SessionError::Sealed { .. } => "Sealed",
        SessionError::NotBound { .. } => "NotBound",
        SessionError::PayloadTooLarge { .. } => "PayloadTooLarge",
    }
}

fn lifecycle_error_name(e: &LifecycleError) -> &'static str {
    match e {
        LifecycleError::Input(i) => input_error_name(i),
        LifecycleError::NotOwned { .. } => "NotOwned",
        _ => "Write",
    }
}

fn kind_of(v: &Value) -> Res<ObjectKind> {
    match v.get("kind").and_then(Value::as_str) {
        Some("actor") | None => Ok(ObjectKind::Actor),
        Some("spot") => Ok(ObjectKind::Spot),
        Some(other) => fail(format!("unknown kind {other:?}")),
    }
}

fn str_of<'a>(v: &'a Value, k: &str) -> Res<&'a str> {
    v.get(k)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing {k:?}"))
}

fn u64_of(v: &Value, k: &str) -> Res<u64> {
    v.get(k)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("missing {k:?}"))
}

fn payload_of(v: &Value, k: &str) -> Vec<u8> {
    v.get(k)
        .and_then(Value::as_str)
        .unwrap_or("")
        .as_bytes()
        .to_vec()
}

/// Checks a call's error against `expect.error`; `Ok(true)` when the step
/// expected exactly this error (nothing more to check).
fn check_error<T, E>(
    step: &Value,
    result: &Result<T, E>,
    name: impl Fn(&E) -> &'static str,
) -> Res<bool> {
    let want = step.pointer("/expect/error").and_then(Value::as_str);
    match (result, want) {
        (Err(e), Some(w)) if name(e) == w => Ok(true),
        (Err(e), Some(w)) => fail(format!("expected error {w}, got {}", name(e))),
        (Err(e), None) => fail(format!("unexpected error {}", name(e))),
        (Ok(_), Some(w)) => fail(format!("expected error {w}, the call succeeded")),
        (Ok(_), None) => Ok(false),
    }
}

fn unavailable_name(r: UnavailableReason) -> &'static str {
    r.as_str()
}

impl Run {
    fn new(scenario: &Value) -> Res<Run> {
        check_config_keys(scenario.get("config"))?;
        let clock = ManualClock::new();
        let store = Arc::new(MemoryStore::with_clock(Arc::new(clock.clone())));
        let config = config_of(scenario.get("config"));
        let n = scenario.get("nodes").and_then(Value::as_u64).unwrap_or(2);
        let nodes = (1..=n)
            .map(|rid| {
                Runtime::builder(identity(rid))
                    .config(config.clone())
                    .clock(Arc::new(clock.clone()))
                    .store(store.clone())
                    .build()
                    .map_err(|e| format!("node {rid} does not start: {e}"))
            })
            .collect::<Res<Vec<_>>>()?;
        let host = scenario.get("host");
        Ok(Run {
            clock,
            nodes,
            network: VecDeque::new(),
            held_back: Vec::new(),
            drop_rule: None,
            hold_rule: None,
            truncate_rule: None,
            corrupt_kind_rule: None,
            names: BTreeMap::new(),
            requests: BTreeMap::new(),
            host: Host {
                reply: host
                    .and_then(|h| h.get("reply"))
                    .and_then(Value::as_bool)
                    .unwrap_or(true),
                restore: host
                    .and_then(|h| h.get("restore"))
                    .and_then(Value::as_str)
                    .unwrap_or("ready")
                    .to_owned(),
            },
            ledger: Ledger::default(),
        })
    }

    fn node(&self, rid: u64) -> Res<&Runtime> {
        self.nodes
            .get((rid as usize).wrapping_sub(1))
            .ok_or_else(|| format!("no node {rid}"))
    }

    fn name_of(&self, op: OperationId) -> String {
        self.names
            .iter()
            .find(|(_, id)| **id == op)
            .map_or_else(|| format!("#{op}"), |(n, _)| n.clone())
    }

    fn op(&self, name: &str) -> Res<OperationId> {
        self.names
            .get(name)
            .copied()
            .ok_or_else(|| format!("no operation named {name:?}"))
    }

    fn post(&mut self, from: NodeRid, out: Outbound) {
        let e = Envelope {
            from,
            to: out.to.rid,
            bytes: out.bytes,
        };
        if self.drop_rule.as_ref().is_some_and(|m| m.matches(&e)) {
            self.ledger.dropped += 1;
        } else if self.hold_rule.as_ref().is_some_and(|m| m.matches(&e)) {
            self.held_back.push(e);
        } else {
            self.network.push_back(e);
        }
    }

    fn event(&mut self, at: u64, tag: impl Into<String>) {
        self.ledger.events.push((at, tag.into()));
    }

    fn deliver(&mut self, at: u64, d: Delivery) -> Res {
        self.ledger.delivered.push((d.operation.operation_id, at));
        if self.host.reply && d.operation.reply_route.is_some() {
            let mut answer = b"re:".to_vec();
            answer.extend_from_slice(&d.operation.payload);
            let reply = self
                .node(at)?
                .reply(&d.operation, wire::ReplyResult::Ok(answer))
                .map_err(|e| format!("reply: {e:?}"))?;
            self.post(NodeRid(at), reply);
        }
        Ok(())
    }

    /// What a host does with one decision of node `at`.
    fn act(&mut self, at: u64, action: Inbound) -> Res {
        let here = NodeRid(at);
        match action {
            Inbound::Deliver(d) => self.deliver(at, d)?,
            Inbound::Relay { forward, notice } => {
                self.post(here, forward);
                if let Some(n) = notice {
                    self.post(here, n.outbound.clone());
                    self.node(at)?.notice_settled(&n.token, true);
                }
            }
            Inbound::Reject(out) => self.post(here, out),
            Inbound::Send(frames) => frames.into_iter().for_each(|f| self.post(here, f)),
            Inbound::Ended(e) => self.ledger.ended.push((e.operation_id, e.failure)),
            Inbound::Completed(c) => self.ledger.completed.push((c.operation_id, c.outcome)),
            Inbound::Late { .. } => {
                self.ledger.late += 1;
                self.event(at, "Late");
            }
            Inbound::RouteRefreshed { invalidated } => {
                self.ledger.refreshed += 1;
                self.ledger.invalidated += u64::from(invalidated);
                self.event(at, "RouteRefreshed");
            }
            Inbound::Dropped(_) => {
                self.ledger.dropped += 1;
                self.event(at, "Dropped");
            }
            Inbound::PeerRefused => self.event(at, "PeerRefused"),
            Inbound::ForeignSender { .. } => self.event(at, "ForeignSender"),
            Inbound::Held => {
                self.ledger.held += 1;
                self.event(at, "Held");
            }
            Inbound::SessionDeliver(_) => self.event(at, "SessionDeliver"),
            Inbound::Session(e) => self.event(at, format!("Session.{}", session_event_name(&e))),
            Inbound::Relocation(a) => self.relocation(at, a)?,
            Inbound::OwnershipLost(_) => self.event(at, "OwnershipLost"),
        }
        Ok(())
    }

    fn relocation(&mut self, at: u64, a: RelocationAction) -> Res {
        for d in a.deliver {
            self.deliver(at, d)?;
        }
        for _ in a.session {
            self.event(at, "SessionDeliver");
        }
        for f in a.send {
            self.post(NodeRid(at), f);
        }
        self.event(
            at,
            format!("Relocation.{}", relocation_event_name(&a.event)),
        );
        if let RelocationEvent::Restore { identity, .. } = &a.event {
            let key = identity.key.clone();
            match self.host.restore.as_str() {
                "ready" => {
                    let frames = self
                        .node(at)?
                        .relocation_restored(key.kind(), key.id())
                        .map_err(|e| format!("relocation_restored: {e}"))?;
                    frames.into_iter().for_each(|f| self.post(NodeRid(at), f));
                }
                "fail" => {
                    let action = self
                        .node(at)?
                        .abort_relocation(key.kind(), key.id())
                        .map_err(|e| format!("abort_relocation: {e}"))?;
                    self.relocation(at, action)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Runs node `at`'s timers if they are due, as a host's loop does.
    fn due(&mut self, at: u64) -> Res {
        let node = self.node(at)?;
        let now = node.now();
        if node.next_deadline().is_some_and(|d| d <= now) {
            for action in node.on_timeout(now) {
                self.act(at, action)?;
            }
        }
        Ok(())
    }

    /// What the corruption rules do to a frame as it is carried: a frame
    /// matching `truncate` loses its last byte, one matching `corrupt_kind`
    /// gets 0xEE at its target's object kind byte (a Message or Request's
    /// byte `HEADER_LEN + 8`, after the operation ID).
    fn corrupt(&self, e: &mut Envelope) {
        if self.truncate_rule.as_ref().is_some_and(|m| m.matches(e)) {
            e.bytes.pop();
        }
        if self
            .corrupt_kind_rule
            .as_ref()
            .is_some_and(|m| m.matches(e))
            && let Some(kind) = e.bytes.get_mut(KIND_AT)
        {
            *kind = 0xEE;
        }
    }

    fn step_frame(&mut self) -> Res<bool> {
        let Some(mut e) = self.network.pop_front() else {
            return Ok(false);
        };
        self.corrupt(&mut e);
        let at = e.to.get();
        let action = self.node(at)?.on_frame(e.from, &e.bytes);
        self.act(at, action)?;
        self.due(at)?;
        Ok(true)
    }

    fn run_step(&mut self, step: &Value) -> Res {
        let what = str_of(step, "do")?;
        match what {
            "activate" => {
                let r = self
                    .node(u64_of(step, "node")?)?
                    .activate(kind_of(step)?, str_of(step, "id")?);
                check_error(step, &r, lifecycle_error_name)?;
            }
            "create" | "publish_ready" | "begin_release" | "complete_release" => {
                let node = self.node(u64_of(step, "node")?)?;
                let (kind, id) = (kind_of(step)?, str_of(step, "id")?);
                let r = match what {
                    "create" => node.create(kind, id).map(drop),
                    "publish_ready" => node.publish_ready(kind, id).map(drop),
                    "begin_release" => node.begin_release(kind, id).map(drop),
                    _ => node.complete_release(kind, id),
                };
                check_error(step, &r, lifecycle_error_name)?;
            }
            "publish_descriptor" => {
                let r = self
                    .node(u64_of(step, "node")?)?
                    .publish_descriptor(str_of(step, "endpoint")?, str_of(step, "identity")?);
                check_error(step, &r, lifecycle_error_name)?;
            }
            "add_manual_peer" => {
                let r = self
                    .node(u64_of(step, "node")?)?
                    .add_manual_peer(str_of(step, "endpoint")?);
                check_error(step, &r, input_error_name)?;
            }
            "ensure_manual_peer" | "peer_closed" => {
                let node = self.node(u64_of(step, "node")?)?;
                let endpoint = str_of(step, "endpoint")?;
                let found = if what == "peer_closed" {
                    let r = node.peer_closed(endpoint);
                    if check_error(step, &r, input_error_name)? {
                        return Ok(());
                    }
                    r.expect("checked")
                } else {
                    let r = node.ensure_manual_peer(endpoint);
                    if check_error(step, &r, lifecycle_error_name)? {
                        return Ok(());
                    }
                    r.expect("checked")
                };
                if let Some(w) = step.pointer("/expect/replacement").and_then(Value::as_bool)
                    && w != found.is_some()
                {
                    return fail(format!("expected replacement {w}, got {found:?}"));
                }
                if let (Some(rid), Some(f)) =
                    (step.pointer("/expect/rid").and_then(Value::as_u64), &found)
                    && f.descriptor.rid.get() != rid
                {
                    return fail(format!(
                        "replacement names {}, expected {rid}",
                        f.descriptor.rid
                    ));
                }
            }
            "peer_opened" => {
                let r = self
                    .node(u64_of(step, "node")?)?
                    .peer_opened(str_of(step, "endpoint")?, NodeRid(u64_of(step, "rid")?));
                check_error(step, &r, input_error_name)?;
            }
            "release" => {
                let node = self.node(u64_of(step, "node")?)?;
                let (kind, id) = (kind_of(step)?, str_of(step, "id")?);
                let r = node
                    .begin_release(kind, id)
                    .and_then(|_| node.complete_release(kind, id));
                check_error(step, &r, lifecycle_error_name)?;
            }
            "resolve" => self.resolve(step)?,
            "lookup_cached" => {
                let r = self
                    .node(u64_of(step, "node")?)?
                    .lookup_cached(kind_of(step)?, str_of(step, "id")?);
                if !check_error(step, &r, input_error_name)? {
                    let hit = r.expect("checked");
                    let want = step.pointer("/expect/hit").and_then(Value::as_bool);
                    if let Some(w) = want
                        && w != hit.is_some()
                    {
                        return fail(format!("expected hit {w}, got {hit:?}"));
                    }
                    if let (Some(n), Some(route)) =
                        (step.pointer("/expect/node").and_then(Value::as_u64), hit)
                        && route.route.node.get() != n
                    {
                        return fail(format!("expected node {n}, got {}", route.route.node));
                    }
                }
            }
            "send" | "request" => self.send(step, what == "request")?,
            "cancel" => {
                let name = str_of(step, "op")?;
                let correlation = *self
                    .requests
                    .get(name)
                    .ok_or_else(|| format!("no request named {name:?}"))?;
                let done = self.node(u64_of(step, "node")?)?.cancel(correlation);
                let cancelled = done.is_some();
                if let Some(c) = done {
                    self.ledger.completed.push((c.operation_id, c.outcome));
                }
                if let Some(w) = step.pointer("/expect/cancelled").and_then(Value::as_bool)
                    && w != cancelled
                {
                    return fail(format!("expected cancelled {w}, got {cancelled}"));
                }
            }
            "carry" => {
                let mut n = 0;
                while self.step_frame()? {
                    n += 1;
                    if n > 100_000 {
                        return fail("the network never went quiet");
                    }
                }
            }
            "step" => {
                for _ in 0..u64_of(step, "frames")? {
                    self.step_frame()?;
                }
            }
            "rule" => {
                if let Some(v) = step.get("drop") {
                    self.drop_rule = Matcher::from_json(v);
                }
                if let Some(v) = step.get("hold") {
                    self.hold_rule = Matcher::from_json(v);
                }
                if let Some(v) = step.get("truncate") {
                    self.truncate_rule = Matcher::from_json(v);
                }
                if let Some(v) = step.get("corrupt_kind") {
                    self.corrupt_kind_rule = Matcher::from_json(v);
                }
            }
            "release_held" => {
                let held = std::mem::take(&mut self.held_back);
                self.network.extend(held);
            }
            "advance" => {
                self.clock
                    .advance(Duration::from_millis(u64_of(step, "ms")?));
                for rid in 1..=self.nodes.len() as u64 {
                    self.due(rid)?;
                }
            }
            "begin_relocation" => {
                let rid = u64_of(step, "node")?;
                let target = self.node(u64_of(step, "target")?)?.node_ref();
                let capture = Capture {
                    saved: Vec::new(),
                    state: payload_of(step, "state"),
                };
                let r = self.node(rid)?.begin_relocation(
                    kind_of(step)?,
                    str_of(step, "id")?,
                    target,
                    capture,
                );
                if !check_error(step, &r, relocation_error_name)? {
                    for f in r.expect("checked").send {
                        self.post(NodeRid(rid), f);
                    }
                }
            }
            "abort_relocation" => {
                let rid = u64_of(step, "node")?;
                let r = self
                    .node(rid)?
                    .abort_relocation(kind_of(step)?, str_of(step, "id")?);
                if !check_error(step, &r, relocation_error_name)? {
                    self.relocation(rid, r.expect("checked"))?;
                }
            }
            "host" => {
                if let Some(r) = step.get("reply").and_then(Value::as_bool) {
                    self.host.reply = r;
                }
                if let Some(r) = step.get("restore").and_then(Value::as_str) {
                    self.host.restore = r.to_owned();
                }
            }
            "open_session" => {
                let id = SessionId(u64_of(step, "session")?);
                self.node(u64_of(step, "node")?)?
                    .open_session(id, SessionGeneration(1));
            }
            "bind" => self.bind(step)?,
            "session_send" => self.session_send(step)?,
            "push" => self.push(step)?,
            "owner_lease_invalidated" => {
                let node = self.node(u64_of(step, "node")?)?;
                let removed = node.on_owner_lease_invalidated(
                    NodeRid(u64_of(step, "of")?),
                    OwnerLeaseGeneration(u64_of(step, "lease")?),
                );
                expect_removed(step, removed)?;
            }
            "store_recovered" => {
                let removed = self.node(u64_of(step, "node")?)?.on_store_recovery();
                expect_removed(step, removed)?;
            }
            "disconnect" => {
                let rid = u64_of(step, "node")?;
                let physical = step
                    .get("physical")
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                let r = self
                    .node(rid)?
                    .disconnect_session(SessionId(u64_of(step, "session")?), physical);
                if !check_error(step, &r, session_error_name)? {
                    for f in r.expect("checked") {
                        self.post(NodeRid(rid), f);
                    }
                }
            }
            "expect" => self.expect(step)?,
            other => return fail(format!("unknown step {other:?}")),
        }
        Ok(())
    }

    fn resolve(&mut self, step: &Value) -> Res {
        let r = self
            .node(u64_of(step, "node")?)?
            .resolve(kind_of(step)?, str_of(step, "id")?);
        if check_error(step, &r, input_error_name)? {
            return Ok(());
        }
        let got = r.expect("checked");
        let Some(want) = step.get("expect") else {
            return Ok(());
        };
        let (tag, node, reason) = match &got {
            Resolution::ReadyRoute(r) => ("ReadyRoute", Some(r.route.node.get()), None),
            Resolution::Missing => ("Missing", None, None),
            Resolution::Unavailable(u) => ("Unavailable", None, Some(unavailable_name(*u))),
            Resolution::StoreFailure(_) => ("StoreFailure", None, None),
        };
        expect_tag(want, tag, node, reason).map_err(|e| format!("{e} ({got:?})"))
    }

    fn send(&mut self, step: &Value, request: bool) -> Res {
        let rid = u64_of(step, "node")?;
        let (kind, id) = (kind_of(step)?, str_of(step, "id")?);
        let payload = payload_of(step, "payload");
        let send = SendOptions {
            instance_intent: step
                .get("instance")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            ..SendOptions::default()
        };
        let node = self.node(rid)?;
        let (tag, to, reason, submitted) = if request {
            let mut options = RequestOptions {
                send,
                ..RequestOptions::default()
            };
            if let Some(ms) = step.get("timeout_ms").and_then(Value::as_u64) {
                options.timeout = Duration::from_millis(ms);
            }
            let r = node.request(kind, id, &payload, options);
            if check_error(step, &r, input_error_name)? {
                return Ok(());
            }
            match r.expect("checked") {
                Requested::Submitted {
                    correlation,
                    operation_id,
                    outbound,
                } => {
                    if let Some(name) = step.get("as").and_then(Value::as_str) {
                        self.requests.insert(name.to_owned(), correlation);
                    }
                    let to = outbound.to.rid.get();
                    ("Submitted", Some(to), None, Some((operation_id, outbound)))
                }
                Requested::NotFound => ("NotFound", None, None, None),
                Requested::ColdActivation => ("ColdActivation", None, None, None),
                Requested::Unavailable(u) => ("Unavailable", None, Some(u.as_str()), None),
                Requested::StoreFailure(_) => ("StoreFailure", None, None, None),
            }
        } else {
            let r = node.send(kind, id, &payload, send);
            if check_error(step, &r, input_error_name)? {
                return Ok(());
            }
            match r.expect("checked") {
                Sent::Submitted {
                    operation_id,
                    outbound,
                } => {
                    let to = outbound.to.rid.get();
                    ("Submitted", Some(to), None, Some((operation_id, outbound)))
                }
                Sent::NotFound => ("NotFound", None, None, None),
                Sent::ColdActivation => ("ColdActivation", None, None, None),
                Sent::Unavailable(u) => ("Unavailable", None, Some(u.as_str()), None),
                Sent::StoreFailure(_) => ("StoreFailure", None, None, None),
            }
        };
        if let Some((op, out)) = submitted {
            if let Some(name) = step.get("as").and_then(Value::as_str) {
                self.names.insert(name.to_owned(), op);
            }
            self.post(NodeRid(rid), out);
        }
        match step.get("expect") {
            Some(want) => expect_tag(want, tag, to, reason),
            None => Ok(()),
        }
    }

    fn bind(&mut self, step: &Value) -> Res {
        let rid = u64_of(step, "node")?;
        let id = str_of(step, "id")?;
        let owner = self.node(u64_of(step, "owner")?)?;
        let end = owner
            .owner_route_end(ObjectKind::Actor, id)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("node {} does not own {id:?}", owner.identity().rid))?;
        let actor_ref = ActorRef {
            actor: ObjectKey::new(ObjectKind::Actor, id).map_err(|e| e.to_string())?,
            route: wire::ActorRoute {
                owner: end.node,
                object_generation: end.fence.object_generation,
                authority_owner_generation: end.fence.authority_owner_generation,
                owner_lease_generation: end.fence.owner_lease_generation,
                lease_remaining_ms: 0,
            },
        };
        let r = self
            .node(rid)?
            .bind(SessionId(u64_of(step, "session")?), &actor_ref);
        if !check_error(step, &r, session_error_name)? {
            self.post(NodeRid(rid), r.expect("checked"));
        }
        Ok(())
    }

    fn session_send(&mut self, step: &Value) -> Res {
        let rid = u64_of(step, "node")?;
        let actor =
            ObjectKey::new(ObjectKind::Actor, str_of(step, "id")?).map_err(|e| e.to_string())?;
        let r = self.node(rid)?.session_send(
            SessionId(u64_of(step, "session")?),
            &actor,
            &payload_of(step, "payload"),
        );
        if check_error(step, &r, session_error_name)? {
            return Ok(());
        }
        let (tag, op) = match r.expect("checked") {
            SessionSend::Sent {
                operation_id,
                outbound,
                ..
            } => {
                self.post(NodeRid(rid), outbound);
                ("Sent", Some(operation_id))
            }
            SessionSend::Held { operation_id, .. } => ("Held", Some(operation_id)),
            SessionSend::Unavailable(_) => ("Unavailable", None),
        };
        if let (Some(name), Some(op)) = (step.get("as").and_then(Value::as_str), op) {
            self.names.insert(name.to_owned(), op);
        }
        match step.get("expect") {
            Some(want) => expect_tag(want, tag, None, None),
            None => Ok(()),
        }
    }

    /// The Actor's owner pushes on the binding Session `session` (opened on
    /// node `session_node`, lifecycle 1) holds, if it has one there.
    fn push(&mut self, step: &Value) -> Res {
        let rid = u64_of(step, "node")?;
        let actor =
            ObjectKey::new(ObjectKind::Actor, str_of(step, "id")?).map_err(|e| e.to_string())?;
        let owner = self.node(u64_of(step, "session_node")?)?.identity();
        let session = wire::SessionRef {
            owner: wire::NodeRef {
                mesh: owner.mesh,
                rid: owner.rid,
                generation: owner.generation,
            },
            id: SessionId(u64_of(step, "session")?),
            generation: SessionGeneration(1),
        };
        let r = self
            .node(rid)?
            .push(&actor, &session, &payload_of(step, "payload"));
        if check_error(step, &r, input_error_name)? {
            return Ok(());
        }
        let pushed = match r.expect("checked") {
            Some(outbound) => {
                self.post(NodeRid(rid), outbound);
                true
            }
            None => false,
        };
        match step.pointer("/expect/pushed").and_then(Value::as_bool) {
            Some(w) if w != pushed => fail(format!("expected pushed {w}, got {pushed}")),
            _ => Ok(()),
        }
    }

    fn expect(&self, step: &Value) -> Res {
        let l = &self.ledger;
        if let Some(list) = step.get("delivered").and_then(Value::as_array) {
            for want in list {
                let op = self.op(str_of(want, "op")?)?;
                let node = u64_of(want, "node")?;
                let times = want.get("times").and_then(Value::as_u64).unwrap_or(1);
                let all: Vec<u64> = l
                    .delivered
                    .iter()
                    .filter(|(o, _)| *o == op)
                    .map(|(_, n)| *n)
                    .collect();
                if all.len() as u64 != times || all.iter().any(|n| *n != node) {
                    return fail(format!(
                        "{} delivered at {all:?}, expected {times} time(s) at node {node}",
                        self.name_of(op)
                    ));
                }
            }
        }
        if let Some(list) = step.get("not_delivered").and_then(Value::as_array) {
            for name in list {
                let op = self.op(name.as_str().ok_or("op names are strings")?)?;
                if let Some((_, n)) = l.delivered.iter().find(|(o, _)| *o == op) {
                    return fail(format!("{} was delivered at node {n}", self.name_of(op)));
                }
            }
        }
        if let Some(list) = step.get("completed").and_then(Value::as_array) {
            for want in list {
                let op = self.op(str_of(want, "op")?)?;
                let got: Vec<&Outcome> = l
                    .completed
                    .iter()
                    .filter(|(o, _)| *o == op)
                    .map(|(_, c)| c)
                    .collect();
                let [outcome] = got.as_slice() else {
                    return fail(format!(
                        "{} completed {} times: {got:?}",
                        self.name_of(op),
                        got.len()
                    ));
                };
                check_outcome(want, outcome).map_err(|e| format!("{}: {e}", self.name_of(op)))?;
            }
        }
        if let Some(list) = step.get("ended").and_then(Value::as_array) {
            for want in list {
                let op = self.op(str_of(want, "op")?)?;
                let got: Vec<&Failure> = l
                    .ended
                    .iter()
                    .filter(|(o, _)| *o == op)
                    .map(|(_, f)| f)
                    .collect();
                let [failure] = got.as_slice() else {
                    return fail(format!("{} ended {} times", self.name_of(op), got.len()));
                };
                let (name, reason) = match failure {
                    Failure::Unavailable(r) => ("Unavailable", Some(r.as_str())),
                    Failure::InvalidOperation => ("InvalidOperation", None),
                };
                expect_field(want, "failure", Some(name))?;
                expect_field(want, "reason", reason)?;
            }
        }
        if let Some(list) = step.get("events").and_then(Value::as_array) {
            let mut from = 0;
            for want in list {
                let (node, tag) = (u64_of(want, "node")?, str_of(want, "tag")?);
                match l.events[from..]
                    .iter()
                    .position(|(n, t)| *n == node && t == tag)
                {
                    Some(i) => from += i + 1,
                    None => {
                        return fail(format!(
                            "no event {tag} at node {node} (in order) among {:?}",
                            l.events
                        ));
                    }
                }
            }
        }
        if let Some(list) = step.get("no_events").and_then(Value::as_array) {
            for want in list {
                let tag = str_of(want, "tag")?;
                let node = want.get("node").and_then(Value::as_u64);
                if l.events
                    .iter()
                    .any(|(n, t)| t == tag && node.is_none_or(|w| w == *n))
                {
                    return fail(format!("event {tag} happened: {:?}", l.events));
                }
            }
        }
        if let Some(want) = step.get("peer_endpoint") {
            let node = self.node(u64_of(want, "node")?)?;
            let got = node.peer_endpoint(NodeRid(u64_of(want, "rid")?));
            let expected = want.get("endpoint").and_then(Value::as_str);
            if got.as_ref().map(|e| e.as_str()) != expected {
                return fail(format!("peer endpoint {got:?}, expected {expected:?}"));
            }
        }
        if let Some(want) = step.get("owner") {
            let (kind, id) = (kind_of(want)?, str_of(want, "id")?);
            let owners: Vec<u64> = (1..=self.nodes.len() as u64)
                .filter(|rid| {
                    self.nodes[*rid as usize - 1]
                        .owned(KeyRef { kind, id })
                        .is_some()
                })
                .collect();
            let expected: Vec<u64> = want
                .get("node")
                .and_then(Value::as_u64)
                .into_iter()
                .collect();
            if owners != expected {
                return fail(format!(
                    "owners of {id:?}: {owners:?}, expected {expected:?}"
                ));
            }
        }
        if let Some(want) = step.get("count").and_then(Value::as_object) {
            for (k, v) in want {
                let got = match k.as_str() {
                    "delivered" => l.delivered.len() as u64,
                    "held" => l.held,
                    "late" => l.late,
                    "dropped" => l.dropped,
                    "in_flight" => self.network.len() as u64,
                    "refreshed" => l.refreshed,
                    "invalidated" => l.invalidated,
                    "completed" => l.completed.len() as u64,
                    "ended" => l.ended.len() as u64,
                    other => return fail(format!("unknown count {other:?}")),
                };
                if Some(got) != v.as_u64() {
                    return fail(format!("count {k} is {got}, expected {v}"));
                }
            }
        }
        if let Some(want) = step.get("stats").and_then(Value::as_object) {
            let node = want
                .get("node")
                .and_then(Value::as_u64)
                .ok_or("stats needs a node")?;
            let s = self.node(node)?.stats();
            for (k, v) in want.iter().filter(|(k, _)| *k != "node") {
                let got = stat(&s, k)?;
                if Some(got) != v.as_u64() {
                    return fail(format!("node {node} stat {k} is {got}, expected {v}"));
                }
            }
        }
        if step.get("exactly_once").and_then(Value::as_bool) == Some(true) {
            let mut seen = BTreeMap::new();
            for (op, _) in &l.delivered {
                *seen.entry(*op).or_insert(0) += 1;
            }
            if let Some((op, n)) = seen.iter().find(|(_, n)| **n > 1) {
                return fail(format!("{} delivered {n} times", self.name_of(*op)));
            }
            for (name, op) in &self.names {
                let delivered = seen.contains_key(op);
                let ended = l.ended.iter().any(|(o, _)| o == op);
                let completed = l.completed.iter().any(|(o, _)| o == op);
                if delivered && ended {
                    return fail(format!("{name} both delivered and ended"));
                }
                if !delivered && !ended && !completed {
                    return fail(format!("{name} lost: neither delivered nor ended"));
                }
            }
        }
        if let Some(want) = step.get("order") {
            let node = u64_of(want, "node")?;
            let ops = want
                .get("ops")
                .and_then(Value::as_array)
                .ok_or("order needs ops")?
                .iter()
                .map(|n| self.op(n.as_str().unwrap_or_default()))
                .collect::<Res<Vec<_>>>()?;
            let at: Vec<OperationId> = l
                .delivered
                .iter()
                .filter(|(o, n)| *n == node && ops.contains(o))
                .map(|(o, _)| *o)
                .collect();
            if at != ops {
                let names: Vec<String> = at.iter().map(|o| self.name_of(*o)).collect();
                return fail(format!("delivered at node {node} in order {names:?}"));
            }
        }
        Ok(())
    }
}

fn session_event_name(e: &SessionEvent) -> &'static str {
    match e {
        SessionEvent::Bound { .. } => "Bound",
        SessionEvent::BindRefused { .. } => "BindRefused",
        SessionEvent::Pushed { .. } => "Pushed",
        SessionEvent::RelayRefused { .. } => "RelayRefused",
        SessionEvent::Sealed { .. } => "Sealed",
        SessionEvent::Closed { .. } => "Closed",
        SessionEvent::Ignored(_) => "Ignored",
    }
}

fn relocation_event_name(e: &RelocationEvent) -> &'static str {
    match e {
        RelocationEvent::Restore { .. } => "Restore",
        RelocationEvent::Cutover { .. } => "Cutover",
        RelocationEvent::CommitDue { .. } => "CommitDue",
        RelocationEvent::Committed { .. } => "Committed",
        RelocationEvent::HandedOff { .. } => "HandedOff",
        RelocationEvent::Aborting { .. } => "Aborting",
        RelocationEvent::Aborted { .. } => "Aborted",
        RelocationEvent::Failed { .. } => "Failed",
        RelocationEvent::CommitRetry { .. } => "CommitRetry",
        RelocationEvent::Ignored { .. } => "Ignored",
    }
}

fn stat(s: &Stats, name: &str) -> Res<u64> {
    Ok(match name {
        "cache_hits" => s.cache_hits,
        "cache_misses" => s.cache_misses,
        "store_reads" => s.store_reads,
        "relays" => s.follow.relays,
        "notifications_sent" => s.follow.notifications_sent,
        "rejections_sent" => s.follow.rejections_sent,
        "frames_dropped" => s.follow.frames_dropped,
        "relocation_held" => s.relocation.held,
        "relocation_relayed" => s.relocation.relayed,
        "relocation_committed" => s.relocation.committed,
        "relocation_aborted" => s.relocation.aborted,
        "requests_unroutable" => s.requests.unroutable,
        "requests_undecodable_answered" => s.requests.undecodable_answered,
        other => return fail(format!("unknown stat {other:?}")),
    })
}

/// A step's `expect.removed`: how many cached routes its call removed.
fn expect_removed(step: &Value, removed: usize) -> Res {
    match step.pointer("/expect/removed").and_then(Value::as_u64) {
        Some(w) if w != removed as u64 => fail(format!("removed {removed}, expected {w}")),
        _ => Ok(()),
    }
}

fn expect_field(want: &Value, key: &str, got: Option<&str>) -> Res {
    match want.get(key).and_then(Value::as_str) {
        Some(w) if Some(w) != got => fail(format!("{key} is {got:?}, expected {w:?}")),
        _ => Ok(()),
    }
}

fn expect_tag(want: &Value, tag: &str, node: Option<u64>, reason: Option<&str>) -> Res {
    expect_field(want, "tag", Some(tag))?;
    expect_field(want, "reason", reason)?;
    for key in ["node", "to"] {
        if let Some(w) = want.get(key).and_then(Value::as_u64)
            && Some(w) != node
        {
            return fail(format!("{key} is {node:?}, expected {w}"));
        }
    }
    Ok(())
}

fn check_outcome(want: &Value, outcome: &Outcome) -> Res {
    expect_field(want, "outcome", Some(outcome.kind()))?;
    let (error, reason, kind) = match outcome {
        Outcome::Error(RequestError::Unavailable(r)) => {
            (Some("Unavailable"), Some(r.as_str()), None)
        }
        Outcome::Error(RequestError::InvalidOperation) => (Some("InvalidOperation"), None, None),
        Outcome::Error(RequestError::Replied(e)) => (
            Some("Replied"),
            None,
            Some(match e.kind {
                wire::ReplyErrorKind::Handler => "Handler",
                wire::ReplyErrorKind::Decode => "Decode",
            }),
        ),
        _ => (None, None, None),
    };
    expect_field(want, "error", error)?;
    expect_field(want, "reason", reason)?;
    expect_field(want, "kind", kind)?;
    if let (Some(w), Outcome::Reply(p)) = (want.get("payload").and_then(Value::as_str), outcome)
        && w.as_bytes() != p.as_slice()
    {
        return fail(format!(
            "reply {:?}, expected {w:?}",
            String::from_utf8_lossy(p)
        ));
    }
    Ok(())
}

/// Plays one scenario; the error names the step.
fn play(scenario: &Value) -> Res {
    let steps = scenario
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("no steps")?;
    // A scenario whose nodes must not start: its first step is `build`.
    if let Some(first) = steps.first()
        && first.get("do").and_then(Value::as_str) == Some("build")
    {
        check_config_keys(first.get("config"))?;
        let config = config_of(first.get("config"));
        let want = first.pointer("/expect/error").and_then(Value::as_str);
        let got = config.validate().err().map(|e| config_error_name(&e));
        return match (got, want) {
            (g, w) if g == w => Ok(()),
            (g, w) => fail(format!(
                "step 1 (build): config error {g:?}, expected {w:?}"
            )),
        };
    }
    let mut run = Run::new(scenario)?;
    for (i, step) in steps.iter().enumerate() {
        run.run_step(step).map_err(|e| {
            let what = step.get("do").and_then(Value::as_str).unwrap_or("?");
            format!("step {} ({what}): {e}", i + 1)
        })?;
    }
    Ok(())
}

fn scenario_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("testdata/scenarios exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_scenario_passes() {
    let files = scenario_files();
    assert!(files.len() >= 40, "only {} scenarios", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{LANGUAGE}: {name}: unreadable: {e}"));
                continue;
            }
        };
        let scenario: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{LANGUAGE}: {name}: not JSON: {e}"));
                continue;
            }
        };
        if scenario.get("name").and_then(Value::as_str) != Some(name.as_str()) {
            failures.push(format!(
                "{LANGUAGE}: {name}: its \"name\" is not its file name"
            ));
        }
        if let Err(e) = play(&scenario) {
            failures.push(format!("{LANGUAGE}: {name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!("{LANGUAGE}: {} scenarios passed", files.len());
}
