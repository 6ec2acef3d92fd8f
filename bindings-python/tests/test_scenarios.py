"""The Python runner of the language-neutral scenario suite
(``testdata/scenarios/*.json``, format in its README): plays every file over
the ``zlink`` wheel as a small host would, with the semantics of the Rust
reference runner (``core/tests/scenarios.rs``), and fails naming the
language, the scenario and the step that did not give what the file says."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

import zlink
from zlink import (
    BindRefused,
    Bound,
    Completed,
    Deliver,
    Dropped,
    Ended,
    Error,
    ForeignSender,
    Held,
    Ignored,
    Late,
    Missing,
    PeerRefused,
    Pushed,
    ReadyRoute,
    Reject,
    Relay,
    RelayRefused,
    Relocation,
    RelocationRestore,
    Reply,
    RouteRefreshed,
    Sealed,
    Send,
    SessionClosed,
    SessionDeliver,
    SessionHeld,
    SessionSent,
    StoreFailure,
    Submitted,
    Unavailable,
)

LANGUAGE = "python"
SCENARIOS = Path(__file__).resolve().parents[2] / "testdata" / "scenarios"
FILES = sorted(SCENARIOS.glob("*.json"))


class StepFailed(Exception):
    """A step did not give what the file says (the message says why)."""


def fail(why: str) -> StepFailed:
    return StepFailed(why)


# A command's number (the header's fourth byte) by its name in the wire
# vectors' JSON (docs/wire.md).
COMMANDS = {
    "Message": 1,
    "Request": 2,
    "Reply": 3,
    "Rejection": 4,
    "SessionBind": 10,
    "SessionBindReply": 11,
    "SessionTombstone": 12,
    "SessionTombstoneAck": 13,
    "SessionRelay": 14,
    "SessionPush": 15,
    "SessionRefused": 16,
    "SessionRelocationSeal": 42,
    "SessionRelocationSealed": 43,
    "SessionRelocationRoute": 44,
    "RelocationRestore": 45,
    "RelocationRelayReady": 46,
    "RelocationCutover": 47,
    "RelocationCommitted": 48,
    "RelocationAbort": 49,
    "MessageFollow": 50,
}

# The scenario's config keys -> RoutingConfig keyword arguments (durations
# are milliseconds in both).
CONFIG_KEYS = {
    "route_cache_max_age_ms": "route_cache_max_age",
    "message_follow_duration_ms": "message_follow_duration",
    "max_follow_hops": "max_follow_hops",
    "session_relocation_seal_timeout_ms": "session_relocation_seal_timeout",
    "session_bind_timeout_ms": "session_bind_timeout",
    "owner_lease_duration_ms": "owner_lease_duration",
    "store_timeout_ms": "store_timeout",
    "store_attempts": "store_attempts",
    "max_object_id_bytes": "max_object_id_bytes",
    "max_message_bytes": "max_message_bytes",
    "relocation_timeout_ms": "relocation_timeout",
    "max_relocation_state_bytes": "max_relocation_state_bytes",
}

# The README's stats names -> where they are in `Runtime.stats()`.
STATS = {
    "cache_hits": ("cache_hits",),
    "cache_misses": ("cache_misses",),
    "store_reads": ("store_reads",),
    "relays": ("follow", "relays"),
    "notifications_sent": ("follow", "notifications_sent"),
    "rejections_sent": ("follow", "rejections_sent"),
    "frames_dropped": ("follow", "frames_dropped"),
    "relocation_held": ("relocation", "held"),
    "relocation_relayed": ("relocation", "relayed"),
    "relocation_committed": ("relocation", "committed"),
    "relocation_aborted": ("relocation", "aborted"),
    "requests_unroutable": ("requests", "unroutable"),
    "requests_undecodable_answered": ("requests", "undecodable_answered"),
}

# Where a Message or Request frame holds its target's object kind: after
# the 10-byte header and the u64 operation ID (core/src/wire/codec.rs).
KIND_AT = 10 + 8

# Session decisions of on_frame -> the README's `Session.<Event>` names
# (the core's SessionEvent variants).
SESSION_EVENTS: dict[type, str] = {
    Bound: "Bound",
    BindRefused: "BindRefused",
    Pushed: "Pushed",
    RelayRefused: "RelayRefused",
    Sealed: "Sealed",
    SessionClosed: "Closed",
    Ignored: "Ignored",
}


def config_kwargs(v: dict[str, Any] | None) -> dict[str, int]:
    if not v:
        return {}
    unknown = sorted(set(v) - set(CONFIG_KEYS))
    if unknown:
        raise fail(f"unknown config keys {unknown}")
    return {CONFIG_KEYS[k]: int(x) for k, x in v.items() if isinstance(x, int)}


def error_name(e: zlink.ZlinkError) -> str:
    """The README's name of a refused call. The binding's exception `kind`
    is the core's variant name; a LifecycleError that is a store write
    rejection (AlreadyExists, WrongState ...) is `Write` in the Rust
    runner, so it is here too."""
    if isinstance(e, zlink.LifecycleError) and e.kind not in ("NotOwned", "NotACommittedMove"):
        return "Write"
    return e.kind


def check_error(step: dict[str, Any], call: Callable[[], Any]) -> tuple[bool, Any]:
    """Runs a call step's call against `expect.error`: (True, None) when the
    step expected exactly this error (nothing more to check), else
    (False, the call's value)."""
    want = (step.get("expect") or {}).get("error")
    try:
        value = call()
    except zlink.ZlinkError as e:
        got = error_name(e)
        detail = f"{got} ({type(e).__name__}.kind={e.kind!r}: {e})"
        if want is None:
            raise fail(f"unexpected error {detail}") from e
        if got != want:
            raise fail(f"expected error {want}, got {detail}") from e
        return True, None
    if want is not None:
        raise fail(f"expected error {want}, the call succeeded")
    return False, value


def kind_of(v: dict[str, Any]) -> zlink.Kind:
    k = v.get("kind", "actor")
    if k not in ("actor", "spot"):
        raise fail(f"unknown kind {k!r}")
    return k  # type: ignore[no-any-return]


def str_of(v: dict[str, Any], k: str) -> str:
    x = v.get(k)
    if not isinstance(x, str):
        raise fail(f"missing {k!r}")
    return x


def int_of(v: dict[str, Any], k: str) -> int:
    x = v.get(k)
    if not isinstance(x, int) or isinstance(x, bool) or x < 0:
        raise fail(f"missing {k!r}")
    return x


def expect_removed(step: dict[str, Any], removed: int) -> None:
    """A step's `expect.removed`: how many cached routes its call removed."""
    w = (step.get("expect") or {}).get("removed")
    if isinstance(w, int) and w != removed:
        raise fail(f"removed {removed}, expected {w}")


def payload_of(v: dict[str, Any], k: str) -> bytes:
    x = v.get(k)
    return x.encode() if isinstance(x, str) else b""


def expect_field(want: dict[str, Any], key: str, got: str | None) -> None:
    w = want.get(key)
    if isinstance(w, str) and w != got:
        raise fail(f"{key} is {got!r}, expected {w!r}")


def expect_tag(want: dict[str, Any], tag: str, node: int | None, reason: str | None) -> None:
    expect_field(want, "tag", tag)
    expect_field(want, "reason", reason)
    for key in ("node", "to"):
        w = want.get(key)
        if isinstance(w, int) and w != node:
            raise fail(f"{key} is {node}, expected {w}")


def check_outcome(want: dict[str, Any], outcome: object) -> None:
    expect_field(want, "outcome", type(outcome).__name__)
    error: str | None = None
    reason: str | None = None
    kind: str | None = None
    if isinstance(outcome, Error):
        if outcome.kind in ("Handler", "Decode"):
            error, kind = "Replied", outcome.kind
        else:
            error, reason = outcome.kind, outcome.reason
    expect_field(want, "error", error)
    expect_field(want, "reason", reason)
    expect_field(want, "kind", kind)
    w = want.get("payload")
    if isinstance(w, str) and isinstance(outcome, Reply) and w.encode() != outcome.payload:
        raise fail(f"reply {outcome.payload!r}, expected {w!r}")


@dataclass
class Envelope:
    sender: int
    to: int
    data: bytes


@dataclass
class Matcher:
    command: str | None = None
    sender: int | None = None
    to: int | None = None

    @staticmethod
    def from_json(v: Any) -> Matcher | None:
        if v is None:
            return None
        return Matcher(v.get("command"), v.get("from"), v.get("to"))

    def matches(self, e: Envelope) -> bool:
        return (
            (self.sender is None or self.sender == e.sender)
            and (self.to is None or self.to == e.to)
            and (
                self.command is None
                or (COMMANDS.get(self.command) is not None
                    and len(e.data) > 3 and COMMANDS[self.command] == e.data[3])
            )
        )


@dataclass
class Ledger:
    """Everything that happened, in the form the expectations read."""

    delivered: list[tuple[int, int]] = field(default_factory=list)
    ended: list[tuple[int, Ended]] = field(default_factory=list)
    completed: list[tuple[int, object]] = field(default_factory=list)
    events: list[tuple[int, str]] = field(default_factory=list)
    late: int = 0
    dropped: int = 0
    held: int = 0
    refreshed: int = 0
    invalidated: int = 0


class Run:
    def __init__(self, scenario: dict[str, Any]) -> None:
        self.clock = zlink.ManualClock()
        store = zlink.MemoryStore(self.clock)
        kwargs = config_kwargs(scenario.get("config"))
        try:
            config = zlink.RoutingConfig(**kwargs)
        except zlink.ZlinkError as e:
            raise fail(f"the nodes do not start: {type(e).__name__} {e.kind}: {e}") from e
        self.nodes: list[zlink.Runtime] = []
        for rid in range(1, int(scenario.get("nodes", 2)) + 1):
            try:
                self.nodes.append(zlink.Runtime(
                    zlink.NodeIdentity("scenario", rid, 1, rid),
                    config=config, store=store, clock=self.clock))
            except zlink.ZlinkError as e:
                raise fail(f"node {rid} does not start: {e}") from e
        self.network: deque[Envelope] = deque()
        self.held_back: list[Envelope] = []
        self.drop_rule: Matcher | None = None
        self.hold_rule: Matcher | None = None
        # Frames matching these are corrupted as they are carried.
        self.truncate_rule: Matcher | None = None
        self.corrupt_kind_rule: Matcher | None = None
        self.names: dict[str, int] = {}
        # The Sessions opened, by (node, session id): what a push names.
        self.sessions: dict[tuple[int, int], zlink.SessionRef] = {}
        self.requests: dict[str, int] = {}
        host = scenario.get("host") or {}
        self.reply = bool(host.get("reply", True))
        self.restore = str(host.get("restore", "ready"))
        self.ledger = Ledger()

    def node(self, rid: int) -> zlink.Runtime:
        if not 1 <= rid <= len(self.nodes):
            raise fail(f"no node {rid}")
        return self.nodes[rid - 1]

    def name_of(self, op: int) -> str:
        for name, o in self.names.items():
            if o == op:
                return name
        return f"#{op}"

    def op(self, name: str) -> int:
        if name not in self.names:
            raise fail(f"no operation named {name!r}")
        return self.names[name]

    # ---- the host ----------------------------------------------------------

    def post(self, sender: int, out: zlink.Outbound) -> None:
        # A frame names the node that made it and its command.
        assert out.sender.rid == sender, (out.sender, sender)
        assert COMMANDS[out.command] == out.bytes[3], out.command
        e = Envelope(sender, out.to.rid, out.bytes)
        if self.drop_rule is not None and self.drop_rule.matches(e):
            self.ledger.dropped += 1
        elif self.hold_rule is not None and self.hold_rule.matches(e):
            self.held_back.append(e)
        else:
            self.network.append(e)

    def event(self, at: int, tag: str) -> None:
        self.ledger.events.append((at, tag))

    def deliver(self, at: int, d: Deliver) -> None:
        operation = d.operation
        self.ledger.delivered.append((operation.operation_id, at))
        if self.reply and operation.is_request:
            try:
                out = self.node(at).reply(operation, b"re:" + operation.payload)
            except zlink.ZlinkError as e:
                raise fail(f"reply: {type(e).__name__} {e.kind}: {e}") from e
            self.post(at, out)

    def act(self, at: int, action: object) -> None:
        """What a host does with one decision of node `at`."""
        match action:
            case Deliver():
                self.deliver(at, action)
            case Relay(forward, notice):
                self.post(at, forward)
                if notice is not None:
                    self.post(at, notice.outbound)
                    self.node(at).notice_settled(notice.token, True)
            case Reject(outbound):
                self.post(at, outbound)
            case Send(outbounds):
                for f in outbounds:
                    self.post(at, f)
            case Ended():
                self.ledger.ended.append((action.operation_id, action))
            case Completed(completion):
                self.ledger.completed.append((completion.operation_id, completion.outcome))
            case Late():
                self.ledger.late += 1
                self.event(at, "Late")
            case RouteRefreshed(invalidated):
                self.ledger.refreshed += 1
                self.ledger.invalidated += int(invalidated)
                self.event(at, "RouteRefreshed")
            case Dropped():
                self.ledger.dropped += 1
                self.event(at, "Dropped")
            case PeerRefused():
                self.event(at, "PeerRefused")
            case ForeignSender():
                self.event(at, "ForeignSender")
            case Held():
                self.ledger.held += 1
                self.event(at, "Held")
            case SessionDeliver():
                self.event(at, "SessionDeliver")
            case Relocation():
                self.relocation(at, action)
            case _ if type(action) in SESSION_EVENTS:
                self.event(at, f"Session.{SESSION_EVENTS[type(action)]}")
            case _:
                raise fail(f"node {at} decided {action!r}, which this host does not know")

    def relocation(self, at: int, a: Relocation) -> None:
        for d in a.deliver:
            self.deliver(at, d)
        for _ in a.session:
            self.event(at, "SessionDeliver")
        for f in a.send:
            self.post(at, f)
        event = a.event
        name = type(event).__name__
        if not name.startswith("Relocation"):
            raise fail(f"unknown relocation event {event!r}")
        self.event(at, "Relocation." + name.removeprefix("Relocation"))
        if isinstance(event, RelocationRestore):
            ident = event.identity
            if self.restore == "ready":
                try:
                    frames = self.node(at).relocation_restored(ident.kind, ident.id)
                except zlink.ZlinkError as e:
                    raise fail(f"relocation_restored: {e.kind}: {e}") from e
                for f in frames:
                    self.post(at, f)
            elif self.restore == "fail":
                try:
                    action = self.node(at).abort_relocation(ident.kind, ident.id)
                except zlink.ZlinkError as e:
                    raise fail(f"abort_relocation: {e.kind}: {e}") from e
                self.relocation(at, action)

    def due(self, at: int) -> None:
        """Runs node `at`'s timers if they are due, as a host's loop does."""
        node = self.node(at)
        now = node.now()
        deadline = node.next_deadline()
        if deadline is not None and deadline <= now:
            for action in node.on_timeout(now):
                self.act(at, action)

    def corrupt(self, e: Envelope) -> None:
        """The corruption rules: a frame matching `truncate` loses its last
        byte, one matching `corrupt_kind` gets 0xEE at its target's kind."""
        if self.truncate_rule is not None and self.truncate_rule.matches(e):
            e.data = e.data[:-1]
        if (self.corrupt_kind_rule is not None and self.corrupt_kind_rule.matches(e)
                and len(e.data) > KIND_AT):
            e.data = e.data[:KIND_AT] + b"\xee" + e.data[KIND_AT + 1:]

    def step_frame(self) -> bool:
        if not self.network:
            return False
        e = self.network.popleft()
        self.corrupt(e)
        action = self.node(e.to).on_frame(e.sender, e.data)
        self.act(e.to, action)
        self.due(e.to)
        return True

    # ---- the steps ---------------------------------------------------------

    def run_step(self, step: dict[str, Any]) -> None:
        what = str_of(step, "do")
        if what == "activate":
            node = self.node(int_of(step, "node"))
            kind, id = kind_of(step), str_of(step, "id")
            check_error(step, lambda: node.activate(kind, id))
        elif what in ("create", "publish_ready", "begin_release", "complete_release"):
            node = self.node(int_of(step, "node"))
            kind, id = kind_of(step), str_of(step, "id")
            call = getattr(node, what)
            check_error(step, lambda: call(kind, id))
        elif what == "publish_descriptor":
            node = self.node(int_of(step, "node"))
            endpoint, ident = str_of(step, "endpoint"), str_of(step, "identity")
            check_error(step, lambda: node.publish_descriptor(endpoint, ident))
        elif what == "add_manual_peer":
            node = self.node(int_of(step, "node"))
            endpoint = str_of(step, "endpoint")
            check_error(step, lambda: node.add_manual_peer(endpoint))
        elif what in ("ensure_manual_peer", "peer_closed"):
            node = self.node(int_of(step, "node"))
            endpoint = str_of(step, "endpoint")
            call = node.peer_closed if what == "peer_closed" else node.ensure_manual_peer
            refused, found = check_error(step, lambda: call(endpoint))
            if refused:
                return
            want = step.get("expect") or {}
            w = want.get("replacement")
            if isinstance(w, bool) and w != (found is not None):
                raise fail(f"expected replacement {w}, got {found!r}")
            names = want.get("rid")
            if isinstance(names, int) and found is not None and found.descriptor.rid != names:
                raise fail(f"replacement names {found.descriptor.rid}, expected {names}")
        elif what == "peer_opened":
            node = self.node(int_of(step, "node"))
            endpoint, rid = str_of(step, "endpoint"), int_of(step, "rid")
            check_error(step, lambda: node.peer_opened(endpoint, rid))
        elif what == "release":
            node = self.node(int_of(step, "node"))
            kind, id = kind_of(step), str_of(step, "id")

            def release() -> None:
                node.begin_release(kind, id)
                node.complete_release(kind, id)

            check_error(step, release)
        elif what == "resolve":
            self.resolve(step)
        elif what == "lookup_cached":
            node = self.node(int_of(step, "node"))
            kind, id = kind_of(step), str_of(step, "id")
            refused, hit = check_error(step, lambda: node.lookup_cached(kind, id))
            if not refused:
                want = step.get("expect") or {}
                w = want.get("hit")
                if isinstance(w, bool) and w != (hit is not None):
                    raise fail(f"expected hit {w}, got {hit!r}")
                n = want.get("node")
                if isinstance(n, int) and hit is not None and hit.node != n:
                    raise fail(f"expected node {n}, got {hit.node}")
        elif what in ("send", "request"):
            self.send(step, what == "request")
        elif what == "cancel":
            name = str_of(step, "op")
            if name not in self.requests:
                raise fail(f"no request named {name!r}")
            done = self.node(int_of(step, "node")).cancel(self.requests[name])
            if done is not None:
                self.ledger.completed.append((done.operation_id, done.outcome))
            w = (step.get("expect") or {}).get("cancelled")
            if isinstance(w, bool) and w != (done is not None):
                raise fail(f"expected cancelled {w}, got {done is not None}")
        elif what == "carry":
            n = 0
            while self.step_frame():
                n += 1
                if n > 100_000:
                    raise fail("the network never went quiet")
        elif what == "step":
            for _ in range(int_of(step, "frames")):
                self.step_frame()
        elif what == "rule":
            if "drop" in step:
                self.drop_rule = Matcher.from_json(step["drop"])
            if "hold" in step:
                self.hold_rule = Matcher.from_json(step["hold"])
            if "truncate" in step:
                self.truncate_rule = Matcher.from_json(step["truncate"])
            if "corrupt_kind" in step:
                self.corrupt_kind_rule = Matcher.from_json(step["corrupt_kind"])
        elif what == "release_held":
            self.network.extend(self.held_back)
            self.held_back = []
        elif what == "advance":
            self.clock.advance(int_of(step, "ms"))
            for rid in range(1, len(self.nodes) + 1):
                self.due(rid)
        elif what == "begin_relocation":
            rid = int_of(step, "node")
            target = self.node(int_of(step, "target")).identity
            node = self.node(rid)
            kind, id, state = kind_of(step), str_of(step, "id"), payload_of(step, "state")
            refused, started = check_error(step, lambda: node.begin_relocation(
                kind, id, target.rid, target.generation, saved=[], state=state))
            if not refused:
                for f in started.send:
                    self.post(rid, f)
        elif what == "abort_relocation":
            rid = int_of(step, "node")
            node = self.node(rid)
            kind, id = kind_of(step), str_of(step, "id")
            refused, action = check_error(step, lambda: node.abort_relocation(kind, id))
            if not refused:
                self.relocation(rid, action)
        elif what == "host":
            if isinstance(step.get("reply"), bool):
                self.reply = step["reply"]
            if isinstance(step.get("restore"), str):
                self.restore = step["restore"]
        elif what == "open_session":
            rid, session = int_of(step, "node"), int_of(step, "session")
            self.sessions[(rid, session)] = self.node(rid).open_session(session, 1)
        elif what == "bind":
            self.bind(step)
        elif what == "session_send":
            self.session_send(step)
        elif what == "push":
            self.push(step)
        elif what == "owner_lease_invalidated":
            node = self.node(int_of(step, "node"))
            of, lease = int_of(step, "of"), int_of(step, "lease")
            refused, removed = check_error(step, lambda: node.on_owner_lease_invalidated(of, lease))
            if not refused:
                expect_removed(step, removed)
        elif what == "store_recovered":
            node = self.node(int_of(step, "node"))
            refused, removed = check_error(step, node.on_store_recovery)
            if not refused:
                expect_removed(step, removed)
        elif what == "disconnect":
            rid = int_of(step, "node")
            node = self.node(rid)
            session = int_of(step, "session")
            physical = step.get("physical", True)
            refused, frames = check_error(
                step, lambda: node.disconnect_session(session, physical=bool(physical)))
            if not refused:
                for f in frames:
                    self.post(rid, f)
        elif what == "expect":
            self.expect(step)
        elif what == "build":
            raise fail("a build step comes only first, alone")
        else:
            raise fail(f"unknown step {what!r}")

    def resolve(self, step: dict[str, Any]) -> None:
        node = self.node(int_of(step, "node"))
        kind, id = kind_of(step), str_of(step, "id")
        refused, got = check_error(step, lambda: node.resolve(kind, id))
        if refused:
            return
        want = step.get("expect")
        if want is None:
            return
        at: int | None
        reason: str | None
        match got:
            case ReadyRoute():
                tag, at, reason = "ReadyRoute", got.node, None
            case Missing():
                tag, at, reason = "Missing", None, None
            case Unavailable(r):
                tag, at, reason = "Unavailable", None, r
            case StoreFailure():
                tag, at, reason = "StoreFailure", None, None
            case _:
                raise fail(f"resolve gave {got!r}")
        try:
            expect_tag(want, tag, at, reason)
        except StepFailed as e:
            raise fail(f"{e} ({got!r})") from None

    def send(self, step: dict[str, Any], request: bool) -> None:
        rid = int_of(step, "node")
        node = self.node(rid)
        kind, id = kind_of(step), str_of(step, "id")
        payload = payload_of(step, "payload")
        instance = bool(step.get("instance", False))
        if request:
            # No timeout_ms: the core's RequestOptions default (5 s), which
            # is the binding's default too.
            timeout = step.get("timeout_ms")
            if isinstance(timeout, int):
                refused, r = check_error(step, lambda: node.request(
                    kind, id, payload, instance_intent=instance, timeout=timeout))
            else:
                refused, r = check_error(step, lambda: node.request(
                    kind, id, payload, instance_intent=instance))
        else:
            refused, r = check_error(step, lambda: node.send(
                kind, id, payload, instance_intent=instance))
        if refused:
            return
        to: int | None = None
        reason: str | None = None
        name = step.get("as")
        match r:
            case Submitted():
                tag, to = "Submitted", r.outbound.to.rid
                if isinstance(name, str):
                    if request:
                        if r.correlation is None:
                            raise fail(f"a submitted request without a correlation: {r!r}")
                        self.requests[name] = r.correlation
                    self.names[name] = r.operation_id
                self.post(rid, r.outbound)
            case zlink.NotFound():
                tag = "NotFound"
            case zlink.ColdActivation():
                tag = "ColdActivation"
            case Unavailable(why):
                tag, reason = "Unavailable", why
            case StoreFailure():
                tag = "StoreFailure"
            case _:
                raise fail(f"{'request' if request else 'send'} gave {r!r}")
        want = step.get("expect")
        if want is not None:
            expect_tag(want, tag, to, reason)

    def bind(self, step: dict[str, Any]) -> None:
        rid = int_of(step, "node")
        id = str_of(step, "id")
        owner = self.node(int_of(step, "owner"))
        try:
            end = owner.owner_route_end("actor", id)
        except zlink.ZlinkError as e:
            raise fail(str(e)) from e
        if end is None:
            raise fail(f"node {owner.identity.rid} does not own {id!r}")
        node = self.node(rid)
        session = int_of(step, "session")
        refused, out = check_error(step, lambda: node.bind(session, id, end))
        if not refused:
            self.post(rid, out)

    def push(self, step: dict[str, Any]) -> None:
        """The Actor's owner pushes on the binding Session `session` (opened
        on node `session_node`) holds, if it has one there."""
        rid = int_of(step, "node")
        node = self.node(rid)
        key = (int_of(step, "session_node"), int_of(step, "session"))
        if key not in self.sessions:
            raise fail(f"no session {key[1]} opened on node {key[0]}")
        session, id = self.sessions[key], str_of(step, "id")
        payload = payload_of(step, "payload")
        refused, out = check_error(step, lambda: node.push(id, session, payload))
        if refused:
            return
        if out is not None:
            self.post(rid, out)
        w = (step.get("expect") or {}).get("pushed")
        if isinstance(w, bool) and w != (out is not None):
            raise fail(f"expected pushed {w}, got {out is not None}")

    def session_send(self, step: dict[str, Any]) -> None:
        rid = int_of(step, "node")
        node = self.node(rid)
        session, id = int_of(step, "session"), str_of(step, "id")
        payload = payload_of(step, "payload")
        refused, r = check_error(step, lambda: node.session_send(session, id, payload))
        if refused:
            return
        op: int | None = None
        match r:
            case SessionSent():
                self.post(rid, r.outbound)
                tag, op = "Sent", r.operation_id
            case SessionHeld():
                tag, op = "Held", r.operation_id
            case Unavailable():
                tag = "Unavailable"
            case _:
                raise fail(f"session_send gave {r!r}")
        name = step.get("as")
        if isinstance(name, str) and op is not None:
            self.names[name] = op
        want = step.get("expect")
        if want is not None:
            expect_tag(want, tag, None, None)

    # ---- the expectations --------------------------------------------------

    def expect(self, step: dict[str, Any]) -> None:
        led = self.ledger
        for want in step.get("delivered") or []:
            op = self.op(str_of(want, "op"))
            node = int_of(want, "node")
            times = want.get("times", 1)
            at = [n for o, n in led.delivered if o == op]
            if len(at) != times or any(n != node for n in at):
                raise fail(
                    f"{self.name_of(op)} delivered at {at}, expected {times} time(s) at node {node}")
        for name in step.get("not_delivered") or []:
            if not isinstance(name, str):
                raise fail("op names are strings")
            op = self.op(name)
            for o, n in led.delivered:
                if o == op:
                    raise fail(f"{self.name_of(op)} was delivered at node {n}")
        for want in step.get("completed") or []:
            op = self.op(str_of(want, "op"))
            got = [c for o, c in led.completed if o == op]
            if len(got) != 1:
                raise fail(f"{self.name_of(op)} completed {len(got)} times: {got!r}")
            try:
                check_outcome(want, got[0])
            except StepFailed as e:
                raise fail(f"{self.name_of(op)}: {e}") from None
        for want in step.get("ended") or []:
            op = self.op(str_of(want, "op"))
            ends = [e for o, e in led.ended if o == op]
            if len(ends) != 1:
                raise fail(f"{self.name_of(op)} ended {len(ends)} times")
            expect_field(want, "failure", ends[0].failure)
            expect_field(want, "reason", ends[0].reason)
        if step.get("events"):
            start = 0
            for want in step["events"]:
                node, tag = int_of(want, "node"), str_of(want, "tag")
                for i in range(start, len(led.events)):
                    if led.events[i] == (node, tag):
                        start = i + 1
                        break
                else:
                    raise fail(f"no event {tag} at node {node} (in order) among {led.events}")
        for want in step.get("no_events") or []:
            tag = str_of(want, "tag")
            node = want.get("node")
            if any(t == tag and (node is None or node == n) for n, t in led.events):
                raise fail(f"event {tag} happened: {led.events}")
        if "peer_endpoint" in step:
            want = step["peer_endpoint"]
            got_endpoint = self.node(int_of(want, "node")).peer_endpoint(int_of(want, "rid"))
            expected = want.get("endpoint")
            if got_endpoint != expected:
                raise fail(f"peer endpoint {got_endpoint!r}, expected {expected!r}")
        if "owner" in step:
            want = step["owner"]
            kind, id = kind_of(want), str_of(want, "id")
            owners = [rid for rid, rt in enumerate(self.nodes, 1) if rt.owned(kind, id) is not None]
            expected_owners = [want["node"]] if isinstance(want.get("node"), int) else []
            if owners != expected_owners:
                raise fail(f"owners of {id!r}: {owners}, expected {expected_owners}")
        for k, v in (step.get("count") or {}).items():
            counts = {
                "delivered": lambda: len(led.delivered),
                "held": lambda: led.held,
                "late": lambda: led.late,
                "dropped": lambda: led.dropped,
                "in_flight": lambda: len(self.network),
                "refreshed": lambda: led.refreshed,
                "invalidated": lambda: led.invalidated,
                "completed": lambda: len(led.completed),
                "ended": lambda: len(led.ended),
            }
            if k not in counts:
                raise fail(f"unknown count {k!r}")
            got_count = counts[k]()
            if got_count != v:
                raise fail(f"count {k} is {got_count}, expected {v}")
        if "stats" in step:
            want = step["stats"]
            node = want.get("node")
            if not isinstance(node, int):
                raise fail("stats needs a node")
            stats = self.node(node).stats()
            for k, v in want.items():
                if k == "node":
                    continue
                if k not in STATS:
                    raise fail(f"unknown stat {k!r}")
                got_stat: Any = stats
                for part in STATS[k]:
                    got_stat = got_stat[part]
                if got_stat != v:
                    raise fail(f"node {node} stat {k} is {got_stat}, expected {v}")
        if step.get("exactly_once") is True:
            seen: dict[int, int] = {}
            for o, _ in led.delivered:
                seen[o] = seen.get(o, 0) + 1
            for o, n in sorted(seen.items()):
                if n > 1:
                    raise fail(f"{self.name_of(o)} delivered {n} times")
            for name, o in sorted(self.names.items()):
                delivered = o in seen
                ended = any(e == o for e, _ in led.ended)
                completed = any(c == o for c, _ in led.completed)
                if delivered and ended:
                    raise fail(f"{name} both delivered and ended")
                if not delivered and not ended and not completed:
                    raise fail(f"{name} lost: neither delivered nor ended")
        if "order" in step:
            want = step["order"]
            node = int_of(want, "node")
            ops = [self.op(n if isinstance(n, str) else "") for n in want.get("ops") or []]
            if "ops" not in want:
                raise fail("order needs ops")
            at = [o for o, n in led.delivered if n == node and o in ops]
            if at != ops:
                raise fail(f"delivered at node {node} in order {[self.name_of(o) for o in at]}")


def build(step: dict[str, Any]) -> None:
    """A scenario whose nodes must not start: the config is refused with
    the rule's name (RoutingConfig validates on creation; a Runtime built
    with it is tried too should it pass)."""
    want = (step.get("expect") or {}).get("error")
    got: str | None = None
    detail = ""
    try:
        config = zlink.RoutingConfig(**config_kwargs(step.get("config")))
        zlink.Runtime(zlink.NodeIdentity("scenario", 1, 1, 1), config=config,
                      store=zlink.MemoryStore(zlink.ManualClock()), clock=zlink.ManualClock())
    except zlink.ZlinkError as e:
        got = e.kind
        detail = f" ({type(e).__name__}: {e})"
    if got != want:
        raise fail(f"config error {got!r}{detail}, expected {want!r}")


def play(scenario: dict[str, Any]) -> None:
    """Plays one scenario; the error names the step."""
    steps = scenario.get("steps")
    if not isinstance(steps, list):
        raise fail("no steps")
    # A scenario whose nodes must not start: its first step is `build`.
    if steps and steps[0].get("do") == "build":
        try:
            build(steps[0])
        except StepFailed as e:
            raise fail(f"step 1 (build): {e}") from None
        return
    run = Run(scenario)
    for i, step in enumerate(steps, 1):
        try:
            run.run_step(step)
        except StepFailed as e:
            raise fail(f"step {i} ({step.get('do', '?')}): {e}") from None
        except Exception as e:  # a binding call the host could not make
            raise fail(f"step {i} ({step.get('do', '?')}): {type(e).__name__}: {e}") from e


def test_there_are_at_least_40_scenarios() -> None:
    assert len(FILES) >= 40, f"{LANGUAGE}: only {len(FILES)} scenarios in {SCENARIOS}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    name = path.stem
    try:
        scenario = json.loads(path.read_text())
    except ValueError as e:
        pytest.fail(f"{LANGUAGE}: {name}: not JSON: {e}", pytrace=False)
    if scenario.get("name") != name:
        pytest.fail(f'{LANGUAGE}: {name}: its "name" is not its file name', pytrace=False)
    try:
        play(scenario)
    except StepFailed as e:
        pytest.fail(f"{LANGUAGE}: {name}: {e}", pytrace=False)
