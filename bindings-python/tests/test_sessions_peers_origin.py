"""Sessions (spec §3), manual object peers (§2.3) and Spot-origin requests
(§4.2) through the Python API: the host carries every frame itself."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

import pytest

import zlink
from zlink import (
    Bound,
    Completed,
    Deliver,
    NodeIdentity,
    Outbound,
    PeerRefused,
    RelocationCommitDue,
    RelocationCommitted,
    RelocationCutover,
    RelocationHandedOff,
    RelocationIdentity,
    RelocationRestore,
    Reply,
    RoutingConfig,
    Runtime,
    Sealed,
    Send,
    SessionHeld,
    SessionRef,
    SessionClosed,
    SessionSent,
    SpotExecution,
    Submitted,
)

from carrier import Carrier

SESSION = 7


class Cluster(Carrier):
    """Runtimes of one mesh on one MemoryStore and one ManualClock."""

    def __init__(self, n: int, config: RoutingConfig | None = None) -> None:
        self.clock = zlink.ManualClock()
        self.store = zlink.MemoryStore(self.clock)
        super().__init__(
            Runtime(NodeIdentity("main", rid), config=config, store=self.store, clock=self.clock)
            for rid in range(1, n + 1)
        )

    def carry(self, sender: int, frames: Iterable[Outbound]) -> None:
        """Carries `frames` sent by node `sender` and every answer, FIFO,
        until none is left; each arrives on the connection to its sender."""
        self.post(sender, frames)
        self.run()

    def deliveries(self, actor: str) -> list[tuple[int, int, bytes]]:
        return [(node, d.sequence, d.payload) for node, d in self.session_delivered
                if d.actor == actor]


def bound_cluster(n: int, actors: dict[str, int],
                  config: RoutingConfig | None = None) -> tuple[Cluster, SessionRef]:
    c = Cluster(n, config)
    session = c[1].open_session(SESSION, 1)
    for actor, owner in actors.items():
        c[owner].activate("actor", actor)
        end = c[owner].owner_route_end("actor", actor)
        assert end is not None
        c.carry(1, [c[1].bind(SESSION, actor, end)])
        match c.events.pop():
            case (1, Bound(s, a, route)):
                assert (s, a) == (session, actor)
                assert c[1].binding(SESSION, actor) == route
                assert route.route.owner.rid == owner
                assert route.binding in {r.binding for r in c[owner].bound_sessions(actor)}
            case other:
                pytest.fail(f"expected Bound, got {other!r}")
    return c, session


def send(c: Cluster, actor: str, payload: bytes) -> SessionSent | SessionHeld:
    result = c[1].session_send(SESSION, actor, payload)
    assert isinstance(result, (SessionSent, SessionHeld)), result
    return result


def seal(c: Cluster, actor: str, source: int, target: int) -> tuple[RelocationIdentity, Outbound]:
    """Begins moving `actor` from `source` to `target` and carries only its
    command 42 to the Session owner: returns the relocation and its Restore,
    not carried yet."""
    started = c[source].begin_relocation("actor", actor, target, 1)
    restore, *frames = started.send
    assert restore.to.rid == target
    assert [f.to.rid for f in frames] == [1]
    c.carry(source, frames)
    match c.events.pop():
        case (node, Sealed(session, a, reloc, sealed)):
            assert (node, session.id, a, reloc, sealed) == (
                source, SESSION, actor, started.identity.relocation, True)
        case other:
            pytest.fail(f"expected Sealed, got {other!r}")
    return started.identity, restore


def test_a_session_keeps_order_across_one_of_its_two_actors_relocating() -> None:
    c, session = bound_cluster(4, {"a1": 2, "a2": 3})
    first = send(c, "a1", b"before")
    assert isinstance(first, SessionSent) and first.outbound.to.rid == 2
    c.carry(1, [first.outbound])
    assert c.deliveries("a1") == [(2, first.sequence, b"before")]
    assert c.session_delivered[-1][1].session == session
    assert c.session_delivered[-1][1].relay_kind == "Message"

    registrations = c[2].bound_sessions("a1")
    identity, restore = seal(c, "a1", 2, 4)
    held = [send(c, "a1", bytes([i])) for i in range(3)]
    assert all(isinstance(h, SessionHeld) for h in held)
    # The other Actor is not sealed: its relay leaves at once.
    other = send(c, "a2", b"meanwhile")
    assert isinstance(other, SessionSent) and other.outbound.to.rid == 3
    c.carry(1, [other.outbound])
    assert c.deliveries("a2") == [(3, other.sequence, b"meanwhile")]
    assert [h.sequence for h in held] == sorted(h.sequence for h in held)
    assert c.deliveries("a1") == [(2, first.sequence, b"before")], "nothing released yet"
    with pytest.raises(zlink.SessionError) as e:
        c[1].bind(SESSION, "a1", c[2].owner_route_end("actor", "a1"))  # type: ignore[arg-type]
    assert e.value.kind == "Sealed"

    # Relocation: the Restore carries the bindings to the target; once its
    # owner CAS commits, its command 44 switches the stored route and
    # releases the held relays there, in order.
    c.carry(2, [restore])
    assert [type(e) for e in c.relocation_events(4)] == [
        RelocationRestore,
        RelocationCommitDue,
        RelocationCommitted,
    ]
    assert [type(e) for e in c.relocation_events(2)] == [RelocationCutover, RelocationHandedOff]
    assert all(e.identity == identity for _, e in c.events  # type: ignore[attr-defined]
               if type(e).__name__.startswith("Relocation"))
    assert c[4].bound_sessions("a1") == registrations
    assert c[2].bound_sessions("a1") == []
    assert c.deliveries("a1")[1:] == [(4, h.sequence, bytes([i])) for i, h in enumerate(held)]
    route = c[1].binding(SESSION, "a1")
    assert route is not None and route.route.owner.rid == 4
    a2 = c[1].binding(SESSION, "a2")
    assert a2 is not None and a2.route.owner.rid == 3, "the other binding is unchanged"
    after = send(c, "a1", b"after")
    assert isinstance(after, SessionSent) and after.outbound.to.rid == 4
    assert after.sequence > held[-1].sequence
    assert c[1].stats()["sessions"]["held"] == 3


def test_without_command_44_within_the_seal_timeout_the_session_is_closed() -> None:
    c, session = bound_cluster(3, {"a1": 2, "a2": 3},
                               RoutingConfig(session_relocation_seal_timeout=1_000))
    seal(c, "a1", 2, 3)  # the Restore is never carried: no command 44 comes
    assert isinstance(send(c, "a1", b"held"), SessionHeld)
    c.clock.advance(999)
    assert c[1].next_deadline() == c[1].now() + 1_000_000
    assert c[1].on_timeout() == []
    c.clock.advance(1)
    closed = c[1].on_timeout()
    match closed:
        case [SessionClosed(s), Send(notifications)]:
            assert s == session
            # Every Actor is told on its stored route, the sealed one too.
            assert sorted(n.to.rid for n in notifications) == [2, 3]
        case _:
            pytest.fail(f"expected SessionClosed then Send, got {closed!r}")
    c.carry(1, notifications)
    # The sealed Actor runs nothing on its source while it moves: that
    # relay waits there for the move's outcome (or is refused).
    assert sorted((n, d.actor, d.relay_kind) for n, d in c.session_delivered) == [
        (3, "a2", "PhysicalDisconnect")]
    refused = [e for _, e in c.events if isinstance(e, zlink.RelayRefused)]
    assert c.held + len(refused) == 1, c.events
    assert c[1].stats()["sessions"]["closed_by_seal_timeout"] == 1
    assert c[1].binding(SESSION, "a1") is None
    with pytest.raises(zlink.SessionError) as e:
        c[1].session_send(SESSION, "a1", b"x")
    assert e.value.kind == "UnknownSession"
    assert isinstance(e.value, zlink.ZlinkError)
    assert c[1].on_timeout() == []


def test_session_calls_on_unknown_state_raise_typed_errors() -> None:
    c, session = bound_cluster(2, {"a1": 2})
    with pytest.raises(zlink.SessionError) as e:
        c[1].session_send(SESSION, "nobody", b"x")
    assert e.value.kind == "NotBound"
    with pytest.raises(zlink.SessionError) as e:
        c[1].session_send(99, "a1", b"x")
    assert e.value.kind == "UnknownSession"
    with pytest.raises(zlink.InputError):
        c[1].binding(SESSION, "")
    with pytest.raises(TypeError):
        c[1].bind(SESSION, "a1", object())  # type: ignore[arg-type]
    # A push from the Actor reaches the Session on its binding.
    out = c[2].push("a1", session, b"hello")
    assert out is not None
    c.carry(2, [out])
    match c.events.pop():
        case (1, zlink.Pushed(s, "a1", b"hello")):
            assert s == session
        case other:
            pytest.fail(f"expected Pushed, got {other!r}")
    frames = c[1].disconnect_session(SESSION, physical=False)
    c.carry(1, frames)
    assert [(d.actor, d.relay_kind) for _, d in c.session_delivered] == [
        ("a1", "LogicalDisconnect")]
    assert c[2].bound_sessions("a1") == []


# ---- manual peers ---------------------------------------------------------

ENDPOINT = "10.0.0.2:7400"


def message_from(sender: Runtime, to: Runtime) -> bytes:
    if to.owned("actor", "a") is None:
        to.activate("actor", "a")
    sent = sender.send("actor", "a", b"x")
    assert isinstance(sent, Submitted), sent
    return sent.outbound.bytes


def test_a_manual_peer_replacement_after_close_refuses_the_old_generations_frames() -> None:
    store = zlink.MemoryStore()
    a = Runtime(NodeIdentity("main", 1), store=store)
    b1 = Runtime(NodeIdentity("main", 2, 1), store=store)
    a.add_manual_peer(ENDPOINT)
    intent = a.peer_intent(ENDPOINT)
    assert intent is not None and intent.installed is None and intent.liveness == "connecting"
    assert a.connect_manual_peers() == []
    assert a.peer_endpoint(2) is None, "an endpoint-only intent is never placement evidence"

    published = b1.publish_descriptor(ENDPOINT, "node-2.mesh")
    assert (published.rid, published.lifecycle_generation) == (2, 1)
    [replacement] = a.connect_manual_peers()
    assert replacement.descriptor == published
    a.peer_opened(ENDPOINT, 2)
    assert a.peer_endpoint(2) == ENDPOINT
    old_frame = message_from(b1, a)
    assert isinstance(a.on_peer_frame(ENDPOINT, old_frame), Deliver)

    # Node 2 restarts with lifecycle generation 2: the replacement waits
    # for the old intent's close.
    b2 = Runtime(NodeIdentity("main", 2, 2), store=store)
    b2.publish_descriptor(ENDPOINT, "node-2.mesh")
    assert a.ensure_manual_peer(ENDPOINT) is None
    intent = a.peer_intent(ENDPOINT)
    assert intent is not None and intent.liveness == "open" and intent.observed_rid == 2
    assert intent.pending is not None and intent.pending.lifecycle_generation == 2
    installed = a.peer_closed(ENDPOINT)
    assert installed is not None
    match installed:
        case zlink.PeerReplacement(zlink.PeerDescriptor(endpoint, 2, 2, identity)):
            assert (endpoint, identity) == (ENDPOINT, "node-2.mesh")
        case _:
            pytest.fail(repr(installed))
    assert a.on_peer_frame(ENDPOINT, old_frame) == PeerRefused(), "not open yet"
    a.peer_opened(ENDPOINT, 2)
    assert a.on_peer_frame(ENDPOINT, old_frame) == PeerRefused(), "the old lifecycle"
    assert isinstance(a.on_peer_frame(ENDPOINT, message_from(b2, a)), Deliver)
    with pytest.raises(zlink.LifecycleError) as e:
        b1.publish_descriptor(ENDPOINT, "node-2.mesh")
    assert e.value.kind == "StaleDescriptor"
    assert a.on_peer_frame("10.9.9.9:1", b"anything") == PeerRefused()
    with pytest.raises(zlink.InputError) as ie:
        a.add_manual_peer("")
    assert ie.value.kind == "BadPeerField"


# ---- Spot-origin requests -------------------------------------------------

def spot_origin(c: Cluster) -> tuple[SpotExecution, Submitted]:
    c[1].activate("actor", "p")
    room = c[2].activate("spot", "room")
    origin = SpotExecution("room", room.object_generation)
    asked = c[2].request("actor", "p", b"from room", origin=origin)
    assert isinstance(asked, Submitted), asked
    return origin, asked


def answer(c: Cluster, asked: Submitted) -> bytes:
    delivery = c[1].on_frame(2, asked.outbound.bytes)
    assert isinstance(delivery, Deliver), delivery
    return c[1].reply(delivery.operation, delivery.operation.payload).bytes


def test_a_spot_origin_request_completes_with_its_origin() -> None:
    c = Cluster(2)
    origin, asked = spot_origin(c)
    match c[2].on_frame(1, answer(c, asked)):
        case Completed(done):
            assert done.origin == origin
            assert done.origin_gone is False
            assert isinstance(done.outcome, Reply) and done.outcome.payload == b"from room"
        case other:
            pytest.fail(repr(other))
    plain = c[2].request("actor", "p", b"q")
    assert isinstance(plain, Submitted) and plain.correlation is not None
    cancelled = c[2].cancel(plain.correlation)
    assert cancelled is not None and cancelled.origin is None


def test_a_spot_origin_request_whose_spot_was_re_created_completes_origin_gone() -> None:
    c = Cluster(2)
    origin, asked = spot_origin(c)
    reply = answer(c, asked)
    c[2].begin_release("spot", "room")
    c[2].complete_release("spot", "room")
    reborn = c[2].activate("spot", "room")
    assert reborn.object_generation != origin.object_generation
    delivered_before = c[2].stats()["follow"]["delivered"]
    match c[2].on_frame(1, reply):
        case Completed(done):
            assert done.origin_gone is True, "the outcome resumes the old execution only"
            assert done.origin == origin
            assert "origin_gone=True" in repr(done)
        case other:
            pytest.fail(repr(other))
    assert c[2].stats()["follow"]["delivered"] == delivered_before


def test_spot_execution_is_a_value() -> None:
    a = SpotExecution("room", 3)
    assert a == SpotExecution("room", 3) and hash(a) == hash(SpotExecution("room", 3))
    assert a != SpotExecution("room", 4)
    assert repr(a) == 'SpotExecution(spot="room", object_generation=3)'
    match a:
        case SpotExecution(spot, generation):
            assert (spot, generation) == ("room", 3)
    with pytest.raises(zlink.InputError):
        SpotExecution("", 1)


# ---- core logs in Python logging -------------------------------------------

def wait_for(caplog: pytest.LogCaptureFixture, text: str) -> logging.LogRecord:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for record in caplog.records:
            if text in record.getMessage():
                return record
        time.sleep(0.01)
    pytest.fail(f"no log record with {text!r}: {[r.getMessage() for r in caplog.records]}")


def test_core_logs_reach_python_logging_and_a_handler_may_call_back(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="zlink")
    c, _ = bound_cluster(3, {"a1": 2, "a2": 3},
                         RoutingConfig(session_relocation_seal_timeout=1_000))
    called_back: list[object] = []

    class CallsBack(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            # The core logged this while holding its session table: the
            # handler runs later, on the pump thread, so this cannot deadlock.
            called_back.append(c[1].on_timeout())

    handler = CallsBack(logging.WARNING)
    logging.getLogger("zlink").addHandler(handler)
    try:
        zlink.forward_logs(logging.INFO)
        c[1].on_frame(2, b"not a frame")
        record = wait_for(caplog, "undecodable frame dropped")
        assert record.levelno == logging.WARNING
        assert record.name.startswith("zlink.")
        seal(c, "a1", 2, 3)
        c.clock.advance(1_000)
        assert isinstance(c[1].on_timeout()[0], SessionClosed)
        wait_for(caplog, "no command 44 within the seal timeout")
        # Below the level nothing is forwarded.
        zlink.forward_logs(logging.CRITICAL + 1)
        caplog.clear()
        c[1].on_frame(2, b"not a frame either")
        time.sleep(0.3)
        assert not [r for r in caplog.records if r.name.startswith("zlink.")]
    finally:
        zlink.forward_logs(logging.CRITICAL + 1)
        logging.getLogger("zlink").removeHandler(handler)
    assert called_back and all(v == [] for v in called_back)
