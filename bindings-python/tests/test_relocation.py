"""The relocation handoff (spec §3.3) through the Python API: the source
seals, the Restore, relay-ready, cutover and commit travel as frames the
host carries; the host only hands over and restores the object's state.
Every World test runs on a MemoryStore and on a real Redis server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import pytest

import zlink
from zlink import (
    Completed,
    Deliver,
    Held,
    Relocation,
    RelocationAborted,
    RelocationAborting,
    RelocationCommitDue,
    RelocationCommitted,
    RelocationCutover,
    RelocationError,
    RelocationHandedOff,
    RelocationIdentity,
    RelocationIgnored,
    RelocationRestore,
    RelocationStarted,
    Reply,
    RoutingConfig,
    Submitted,
    wire,
)

from carrier import Carrier, decided
from conftest import World

ACTOR: Final = "actor"


def accepted(owner: zlink.Runtime, sender: zlink.Runtime, payload: bytes,
             *, request: bool = False) -> Deliver:
    """An operation `owner` admitted (a Deliver) but whose handler has not run."""
    sent = (sender.request(ACTOR, "x", payload) if request
            else sender.send(ACTOR, "x", payload))
    assert isinstance(sent, Submitted), sent
    d = owner.on_frame(sender.identity.rid, sent.outbound.bytes)
    assert isinstance(d, Deliver), d
    return d


def sent_to(sender: zlink.Runtime, payload: bytes, *, request: bool = False) -> Submitted:
    sent = (sender.request(ACTOR, "x", payload) if request
            else sender.send(ACTOR, "x", payload))
    assert isinstance(sent, Submitted), sent
    return sent


def test_a_move_holds_work_on_the_source_and_delivers_it_on_the_target_after_commit(
        world: World) -> None:
    a, b, c = world.node(1), world.node(2), world.node(3)
    owned = a.activate(ACTOR, "x")
    b.resolve(ACTOR, "x")
    d0 = accepted(a, b, b"saved")

    started = a.begin_relocation(ACTOR, "x", 3, 1, saved=[d0.operation], state=b"state-1")
    assert isinstance(started, RelocationStarted)
    identity = started.identity
    match identity:
        case RelocationIdentity(relocation, kind, id, generation):
            assert (kind, id, generation) == (ACTOR, "x", owned.object_generation)
            assert relocation > 0
    assert [f.to.rid for f in started.send] == [3], "the Restore; no Session is bound"
    assert wire.decode(started.send[0].bytes).command

    # Sealed: what arrives now is held, never run here.
    m1 = sent_to(b, b"during-seal")
    r1 = sent_to(b, b"ping", request=True)
    assert a.on_frame(2, m1.outbound.bytes) == Held()
    assert a.on_frame(2, r1.outbound.bytes) == Held()

    match c.on_frame(1, started.send[0].bytes):
        case Relocation(RelocationRestore(ident, 1, 1, state), (), ()):
            assert ident == identity and state == b"state-1"
        case other:
            pytest.fail(f"expected a Restore, got {other!r}")
    assert c.owned(ACTOR, "x") is None, "nothing runs on the target before its commit"
    [ready] = c.relocation_restored(ACTOR, "x")
    assert ready.to.rid == 1

    cutover = a.on_frame(3, ready.bytes)
    match cutover:
        case Relocation(RelocationCutover(ident, relayed), (), frames):
            assert (ident, relayed) == (identity, 2)
            assert [f.to.rid for f in frames] == [3, 3, 3], "two relays, then the cutover"
        case other:
            pytest.fail(f"expected a Cutover, got {other!r}")
    assert a.owned(ACTOR, "x") is None, "past relay-ready the source never runs it again"

    carrier = Carrier([a, c])
    carrier.post(1, frames)
    carrier.run()
    # The cutover makes the owner CAS due; it runs on the timer surface.
    [due, committed] = carrier.relocation_events(3)
    assert isinstance(due, RelocationCommitDue) and due.identity == identity
    match committed:
        case RelocationCommitted(ident, 1, 1):
            assert ident == identity
        case other:
            pytest.fail(f"expected Committed, got {other!r}")
    [handed_off] = carrier.relocation_events(1)
    match handed_off:
        case RelocationHandedOff(ident, 3, 1):
            assert ident == identity
        case other:
            pytest.fail(f"expected HandedOff, got {other!r}")
    # The merge order on the target: saved work, then what the source held.
    assert carrier.payloads(3) == [b"saved", b"during-seal", b"ping"]
    assert carrier.payloads(1) == []
    assert all(isinstance(d, Deliver) for _, d in carrier.delivered)

    now = c.owned(ACTOR, "x")
    assert now is not None
    assert now.object_generation == owned.object_generation
    assert now.authority_owner_generation == owned.authority_owner_generation + 1

    # The request is answered on the target, on the reply route it carried.
    [(_, request)] = [(n, d) for n, d in carrier.delivered if d.operation.is_request]
    reply = c.reply(request.operation, b"pong")
    assert reply.to.rid == 2
    match b.on_frame(3, reply.bytes):
        case Completed(done):
            assert done.correlation == r1.correlation
            assert isinstance(done.outcome, Reply) and done.outcome.payload == b"pong"
        case other:
            pytest.fail(f"expected the reply, got {other!r}")

    b.on_store_recovery()
    route = b.resolve(ACTOR, "x")
    assert isinstance(route, zlink.ReadyRoute) and route.node == 3

    src, dst = a.stats(), c.stats()
    assert (src["relocation"]["begun"], src["relocation"]["handed_off"]) == (1, 1)
    assert (src["relocation"]["held"], src["relocation"]["relayed"]) == (2, 2)
    assert (dst["relocation"]["restores"], dst["relocation"]["committed"]) == (1, 1)
    for s in (src, dst):
        assert s["tables"]["relocation_sources"] == 0
        assert s["tables"]["relocation_targets"] == 0


def test_abort_before_relay_ready_gives_the_held_work_back_on_the_source_in_order(
        world: World) -> None:
    a, b, c = world.node(1), world.node(2), world.node(3)
    owned = a.activate(ACTOR, "x")
    d0 = accepted(a, b, b"m0")
    started = a.begin_relocation(ACTOR, "x", 3, 1, saved=[d0.operation], state=b"s")
    assert a.on_frame(2, sent_to(b, b"m1").outbound.bytes) == Held()
    restored = c.on_frame(1, started.send[0].bytes)
    assert isinstance(restored, Relocation) and isinstance(restored.event, RelocationRestore)

    # The source gives the move up: it tells the target and stays sealed
    # until the target confirms it discarded.
    aborting = a.abort_relocation(ACTOR, "x")
    match aborting:
        case Relocation(RelocationAborting(ident, "Requested"), (), send):
            assert ident == started.identity
            assert [f.to.rid for f in send] == [3]
        case other:
            pytest.fail(f"expected Aborting, got {other!r}")
    assert a.on_frame(2, sent_to(b, b"m2").outbound.bytes) == Held(), "still sealed"

    match c.on_frame(1, send[0].bytes):
        case Relocation(RelocationAborted(ident, "Requested"), (), confirm):
            assert ident == started.identity
            assert [f.to.rid for f in confirm] == [1]
        case other:
            pytest.fail(f"expected the target to discard, got {other!r}")
    assert c.owned(ACTOR, "x") is None
    with pytest.raises(RelocationError) as e:
        c.relocation_restored(ACTOR, "x")
    assert e.value.kind == "NotRelocating"

    aborted = a.on_frame(3, confirm[0].bytes)
    match aborted:
        case Relocation(RelocationAborted(ident, "Requested"), deliver, _):
            assert ident == started.identity
            assert [d.operation.payload for d in deliver] == [b"m0", b"m1", b"m2"]
            assert all(isinstance(d, Deliver) for d in deliver)
            assert all(d.object_generation == owned.object_generation for d in deliver)
        case other:
            pytest.fail(f"expected Aborted with the held work, got {other!r}")
    assert "RelocationAborted(identity=RelocationIdentity(" in repr(aborted)
    assert 'reason="Requested"' in repr(aborted)

    # The object runs on the source again.
    assert a.owned(ACTOR, "x") == owned
    assert isinstance(a.on_frame(2, sent_to(b, b"after").outbound.bytes), Deliver)
    with pytest.raises(RelocationError) as e:
        a.abort_relocation(ACTOR, "x")
    assert e.value.kind == "NotRelocating"
    assert a.stats()["relocation"]["aborted"] == 1
    assert c.stats()["relocation"]["aborted"] == 1


def test_a_target_that_cannot_restore_aborts_and_the_source_takes_its_work_back(
        world: World) -> None:
    a, b, c = world.node(1), world.node(2), world.node(3)
    a.activate(ACTOR, "x")
    started = a.begin_relocation(ACTOR, "x", 3, 1, state=b"corrupt")
    assert a.on_frame(2, sent_to(b, b"m1").outbound.bytes) == Held()
    c.on_frame(1, started.send[0].bytes)
    match c.abort_relocation(ACTOR, "x"):
        case Relocation(RelocationAborted(ident, "RestoreFailed"), (), send):
            assert ident == started.identity and [f.to.rid for f in send] == [1]
        case other:
            pytest.fail(f"expected the target to give up, got {other!r}")
    carrier = Carrier([a, c])
    carrier.post(3, send)
    carrier.run()
    assert carrier.payloads(1) == [b"m1"]
    assert [type(e) for e in carrier.relocation_events(1)] == [RelocationAborted]
    assert a.owned(ACTOR, "x") is not None and c.owned(ACTOR, "x") is None


def test_a_restarted_target_is_named_with_its_generation(world: World) -> None:
    """The target's node generation is required: a default of 1 was refused
    by a target that had restarted (generation 2)."""
    a, c = world.node(1), world.node(3, generation=2)
    a.activate(ACTOR, "x")
    with pytest.raises(TypeError):
        a.begin_relocation(ACTOR, "x", 3)  # type: ignore[call-arg]
    started = a.begin_relocation(ACTOR, "x", 3, c.identity.generation)
    assert started.send[0].to.generation == 2
    c.on_frame(1, started.send[0].bytes)
    [ready] = c.relocation_restored(ACTOR, "x")
    assert isinstance(a.on_frame(3, ready.bytes).event, RelocationCutover)  # type: ignore[union-attr]


def test_past_relay_ready_a_move_does_not_roll_back(world: World) -> None:
    a, c = world.node(1), world.node(3)
    a.activate(ACTOR, "x")
    started = a.begin_relocation(ACTOR, "x", 3, 1)
    c.on_frame(1, started.send[0].bytes)
    [ready] = c.relocation_restored(ACTOR, "x")
    with pytest.raises(RelocationError) as e:
        c.abort_relocation(ACTOR, "x")
    assert e.value.kind == "AfterRelayReady" and e.value.refusal is None
    with pytest.raises(RelocationError) as e:
        c.relocation_restored(ACTOR, "x")
    assert (e.value.kind, e.value.refusal) == ("Refused", "AlreadyRelayReady")
    assert isinstance(a.on_frame(3, ready.bytes).event, RelocationCutover)  # type: ignore[union-attr]
    with pytest.raises(RelocationError) as e:
        a.abort_relocation(ACTOR, "x")
    assert e.value.kind == "AfterRelayReady"
    # A duplicate relay-ready changes nothing: refused and counted.
    match a.on_frame(3, ready.bytes):
        case Relocation(RelocationIgnored(ident, refusal), (), _):
            assert ident == started.identity and refusal
        case other:
            pytest.fail(f"expected Ignored, got {other!r}")
    assert a.stats()["relocation"]["control_refused"] == 1


def test_without_a_restore_within_relocation_timeout_the_source_takes_its_work_back(
        make_world: Callable[..., World]) -> None:
    world = make_world(RoutingConfig(relocation_timeout=1_000))
    a, b, c = world.node(1), world.node(2), world.node(3)
    assert a.config.relocation_timeout == 1_000
    a.activate(ACTOR, "x")
    started = a.begin_relocation(ACTOR, "x", 3, 1, state=b"s")
    assert a.on_frame(2, sent_to(b, b"held").outbound.bytes) == Held()
    restore = c.on_frame(1, started.send[0].bytes)
    assert isinstance(restore, Relocation)
    # The target's host never calls relocation_restored.
    assert a.next_deadline() == a.now() + 1_000_000_000
    world.clock.advance(999)
    assert a.on_timeout() == []
    world.clock.advance(1)
    match a.on_timeout():
        case [Relocation(RelocationAborting(ident, "Timeout"), (), send)]:
            assert ident == started.identity
            assert [f.to.rid for f in send] == [3]
        case other:
            pytest.fail(f"expected Aborting(Timeout), got {other!r}")
    # The target withdraws on the source's Abort and confirms; the source
    # then runs the object again, with its held work.
    carrier = Carrier([a, c])
    carrier.post(1, send)
    carrier.run()
    events = carrier.relocation_events(1)
    match events:
        case [RelocationAborted(ident, "Timeout")]:
            assert ident == started.identity
        case _:
            pytest.fail(f"expected Aborted(Timeout) on the source, got {events!r}")
    assert carrier.payloads(1) == [b"held"]
    assert a.owned(ACTOR, "x") is not None and c.owned(ACTOR, "x") is None
    assert c.on_timeout() == [] and a.on_timeout() == []
    for rt in (a, c):
        tables = rt.stats()["tables"]
        assert (tables["relocation_sources"], tables["relocation_targets"]) == (0, 0)


def test_a_target_that_never_answers_is_fenced_off_in_the_store(
        make_world: Callable[..., World]) -> None:
    world = make_world(RoutingConfig(relocation_timeout=1_000))
    a, b = world.node(1), world.node(2)
    owned = a.activate(ACTOR, "x")
    started = a.begin_relocation(ACTOR, "x", 3, 1)  # node 3 never hears of it
    assert a.on_frame(2, sent_to(b, b"held").outbound.bytes) == Held()
    world.clock.advance(1_000)
    [aborting] = a.on_timeout()
    assert isinstance(aborting, Relocation) and isinstance(aborting.event, RelocationAborting)
    world.clock.advance(1_000)
    # No confirmation: the source re-takes its own authority in the store
    # (so the target's owner CAS can never succeed), then unseals. The
    # fence runs on the store's I/O: on Redis a later on_timeout has it.
    match decided(a):
        case [Relocation(RelocationAborted(ident, "Timeout"), deliver, _)]:
            assert ident == started.identity
            assert [d.operation.payload for d in deliver] == [b"held"]
        case other:
            pytest.fail(f"expected Aborted after the fence, got {other!r}")
    now = a.owned(ACTOR, "x")
    assert now is not None and now.object_generation == owned.object_generation
    assert now.authority_owner_generation > owned.authority_owner_generation
    # A route to the old tenure is refused; the new one is delivered.
    stale = a.on_frame(2, sent_to(b, b"stale").outbound.bytes)
    assert isinstance(stale, zlink.Reject)
    assert isinstance(b.on_frame(1, stale.outbound.bytes), zlink.Ended)
    assert isinstance(a.on_frame(2, sent_to(b, b"after").outbound.bytes), Deliver)


def test_relocation_calls_refuse_bad_input(world: World) -> None:
    small = RoutingConfig(max_relocation_state_bytes=16)
    assert small.max_relocation_state_bytes == 16
    a, b, c = world.node(1, config=small), world.node(2), world.node(3)
    a.activate(ACTOR, "x")
    a.activate(ACTOR, "y")

    with pytest.raises(RelocationError) as e:
        a.begin_relocation(ACTOR, "x", 3, 1, state=b"z" * 17)
    assert e.value.kind == "StateTooLarge" and isinstance(e.value, zlink.ZlinkError)
    assert "17" in str(e.value)
    with pytest.raises(RelocationError) as e:
        a.begin_relocation(ACTOR, "nobody", 3, 1)
    assert e.value.kind == "NotOwned"
    with pytest.raises(RelocationError) as e:
        a.begin_relocation(ACTOR, "x", 1, 1)
    assert e.value.kind == "TargetIsSelf"
    for_x = accepted(a, b, b"for x")
    with pytest.raises(RelocationError) as e:
        # An operation for another object is not this one's saved work.
        a.begin_relocation(ACTOR, "y", 3, 1, saved=[for_x.operation])
    assert e.value.kind == "ForeignOperation"
    with pytest.raises(TypeError):
        a.begin_relocation(ACTOR, "x", 3, 1, saved=[b"not an operation"])  # type: ignore[list-item]
    with pytest.raises(zlink.InputError) as ie:
        a.begin_relocation(ACTOR, "", 3, 1)
    assert ie.value.kind == "EmptyObjectId"
    with pytest.raises(zlink.InputError):
        a.begin_relocation("user", "x", 3, 1)  # type: ignore[arg-type]
    with pytest.raises(RelocationError) as e:
        c.relocation_restored(ACTOR, "x")
    assert e.value.kind == "NotRelocating"
    assert a.stats()["relocation"]["begun"] == 0, "nothing changed"

    a.begin_relocation(ACTOR, "x", 3, 1, state=b"z" * 16)
    with pytest.raises(RelocationError) as e:
        a.begin_relocation(ACTOR, "x", 3, 1)
    assert e.value.kind == "AlreadyRelocating"
    assert a.stats()["relocation"]["begun"] == 1


def test_results_are_values() -> None:
    assert Held() == Held() and hash(Held()) == hash(Held()) and repr(Held()) == "Held()"
    clock = zlink.ManualClock()
    store = zlink.MemoryStore(clock)
    a = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store, clock=clock)
    c = zlink.Runtime(zlink.NodeIdentity("main", 3), store=store, clock=clock)
    a.activate(ACTOR, "x")
    started = a.begin_relocation(ACTOR, "x", 3, 1)
    ident = started.identity
    assert ident == ident and hash(ident) == hash(started.identity)
    assert repr(ident).startswith(f"RelocationIdentity(relocation={ident.relocation}, "
                                  'kind="actor", id="x", object_generation=')
    with pytest.raises(AttributeError):
        ident.relocation = 5  # type: ignore[misc]
    restore = c.on_frame(1, started.send[0].bytes)
    assert isinstance(restore, Relocation)
    assert restore == restore and restore.deliver == () and restore.send == ()
    event = restore.event
    assert isinstance(event, RelocationRestore) and event == restore.event
    assert hash(event) == hash(restore.event)
    assert repr(event) == (f"RelocationRestore(identity={ident!r}, source_rid=1, "
                           "source_generation=1, state=<0 bytes>)")
    assert repr(restore).startswith("Relocation(event=RelocationRestore(")
    assert "RelocationStarted(identity=" in repr(started)


def test_relocation_config_and_frames() -> None:
    c = RoutingConfig()
    assert (c.relocation_timeout, c.max_relocation_state_bytes) == (5_000, 16 * 1024 * 1024)
    assert "relocation_timeout=5000" in repr(c)
    for kwargs, kind in (({"relocation_timeout": 0}, "ZeroDuration"),
                         ({"max_relocation_state_bytes": 0}, "StateBound"),
                         ({"relocation_timeout": -1}, "Negative")):
        with pytest.raises(zlink.ConfigError) as e:
            RoutingConfig(**kwargs)
        assert e.value.kind == kind

    clock = zlink.ManualClock()
    store = zlink.MemoryStore(clock)
    a = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store, clock=clock)
    a.activate(ACTOR, "x")
    restore = a.begin_relocation(ACTOR, "x", 3, 1, state=b"0123456789").send[0].bytes
    frame = wire.decode(restore)
    assert frame.command and wire.encode(frame) == restore
    assert isinstance(frame.to_dict(), dict)
    with pytest.raises(zlink.WireError):
        wire.decode(restore, max_state_bytes=9)


def test_an_owner_cas_on_a_paused_redis_never_blocks_the_asyncio_loop(own_redis_server) -> None:  # type: ignore[no-untyped-def]
    """The cutover's owner CAS runs on the store's I/O: with the server
    paused (SIGSTOP), the target's `on_timeout`, called on the event loop,
    returns at once and the loop keeps running; once the server is back, a
    later `on_timeout` commits the move."""
    import asyncio
    import os
    import signal
    import time

    store = zlink.RedisStore(own_redis_server.url, prefix="loop")
    a = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store)
    c = zlink.Runtime(zlink.NodeIdentity("main", 3), store=store)
    a.activate(ACTOR, "x")
    started = a.begin_relocation(ACTOR, "x", 3, 1)
    [restore] = started.send
    assert isinstance(c.on_frame(1, restore.bytes), Relocation)
    [ready] = c.relocation_restored(ACTOR, "x")
    cutover = a.on_frame(3, ready.bytes)
    assert isinstance(cutover, Relocation) and isinstance(cutover.event, RelocationCutover)
    [to_target] = cutover.send
    assert own_redis_server.proc is not None
    pid = own_redis_server.proc.pid

    async def host() -> tuple[float, float, list[object]]:
        loop = asyncio.get_running_loop()
        gaps: list[float] = []
        done = asyncio.Event()

        async def ticker() -> None:
            last = loop.time()
            while not done.is_set():
                await asyncio.sleep(0.005)
                now = loop.time()
                gaps.append(now - last)
                last = now

        ticking = asyncio.create_task(ticker())
        os.kill(pid, signal.SIGSTOP)
        try:
            due = c.on_frame(1, to_target.bytes)
            assert isinstance(due, Relocation) and isinstance(due.event, RelocationCommitDue)
            began = time.monotonic()
            first = c.on_timeout()  # on the loop's thread, the server paused
            took = time.monotonic() - began
            assert first == [], first
            await asyncio.sleep(0.3)  # the loop runs while the CAS waits
        finally:
            os.kill(pid, signal.SIGCONT)
        decided_now: list[object] = []
        give_up = time.monotonic() + 10
        while not any(isinstance(d, Relocation) and isinstance(d.event, RelocationCommitted)
                      for d in decided_now):
            assert time.monotonic() < give_up, decided_now
            due_at = c.next_deadline()
            if due_at is not None and due_at <= c.now():
                decided_now.extend(c.on_timeout())
            await asyncio.sleep(0.005)
        done.set()
        await ticking
        return took, max(gaps), decided_now

    took, widest_gap, _ = asyncio.run(host())
    assert took < 0.1, f"on_timeout waited {took:.3f} s on the paused store"
    assert widest_gap < 0.2, f"the loop stalled for {widest_gap:.3f} s"
    assert c.owned(ACTOR, "x") is not None and a.owned(ACTOR, "x") is None
