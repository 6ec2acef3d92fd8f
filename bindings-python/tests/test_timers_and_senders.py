"""The one timer surface (next_deadline / on_timeout), frames bound to their
connection (ForeignSender) and the message bound on every frame-producing
call, as Python sees them."""

from __future__ import annotations

import pytest

import zlink
from zlink import NodeIdentity, RoutingConfig, Runtime


def world(n: int, config: RoutingConfig | None = None) -> tuple[zlink.ManualClock, list[Runtime]]:
    clock = zlink.ManualClock()
    store = zlink.MemoryStore(clock)
    nodes = [Runtime(NodeIdentity("main", rid), config=config, store=store, clock=clock)
             for rid in range(1, n + 1)]
    return clock, nodes


def test_a_request_deadline_comes_through_next_deadline_and_on_timeout() -> None:
    clock, (a, b) = world(2)
    a.activate("actor", "x")
    assert b.next_deadline() is None
    asked = b.request("actor", "x", b"q", timeout=1_000)
    assert isinstance(asked, zlink.Submitted)
    deadline = b.next_deadline()
    assert deadline == b.now() + 1_000 * 1_000_000
    clock.advance(999)
    assert b.on_timeout() == [], "an early call does nothing"
    clock.advance(1)
    match b.on_timeout():
        case [zlink.Completed(done)]:
            assert done.correlation == asked.correlation
            assert isinstance(done.outcome, zlink.Timeout)
        case other:
            pytest.fail(repr(other))
    assert b.next_deadline() is None
    assert b.stats()["tables"]["pending_requests"] == 0


def test_an_answered_request_leaves_nothing_to_wake_for() -> None:
    _, (a, b) = world(2)
    a.activate("actor", "x")
    asked = b.request("actor", "x", b"q", timeout=1_000)
    assert isinstance(asked, zlink.Submitted)
    delivered = a.on_frame(2, asked.outbound.bytes)
    assert isinstance(delivered, zlink.Deliver)
    reply = a.reply(delivered.operation, b"a")
    assert isinstance(b.on_frame(1, reply.bytes), zlink.Completed)
    assert b.next_deadline() is None, "no deadline of an answered request"


def test_config_replace_changes_the_fields_named_and_keeps_the_rest() -> None:
    _, (a,) = world(1, RoutingConfig(message_follow_duration=40_000))
    a.update_config(a.config.replace(route_cache_max_age=5_000))
    assert a.config.route_cache_max_age == 5_000
    assert a.config.message_follow_duration == 40_000, "kept, not reset"
    with pytest.raises(TypeError, match="route_cache_max_ag"):
        a.config.replace(route_cache_max_ag=1)
    with pytest.raises(zlink.ConfigError):
        a.config.replace(route_cache_max_age=50_000)  # outlives follow


def test_an_unanswered_bind_ends_refused_at_the_bind_timeout() -> None:
    clock, (a, b) = world(2, RoutingConfig(session_bind_timeout=500))
    b.activate("actor", "x")
    session = a.open_session(7, 1)
    end = b.owner_route_end("actor", "x")
    assert end is not None
    a.bind(7, "x", end)  # never carried
    clock.advance(500)
    match a.on_timeout():
        case [zlink.BindRefused(s, "x", "Timeout")]:
            assert s == session
        case other:
            pytest.fail(repr(other))
    assert a.stats()["sessions"]["bind_timeouts"] == 1
    assert RoutingConfig(session_bind_timeout=500).session_bind_timeout == 500
    with pytest.raises(zlink.ConfigError):
        RoutingConfig(session_bind_timeout=0)


def test_a_frame_on_another_nodes_connection_is_refused() -> None:
    _, (a, b, c) = world(3)
    a.activate("actor", "x")
    sent = b.send("actor", "x", b"m")
    assert isinstance(sent, zlink.Submitted)
    match a.on_frame(3, sent.outbound.bytes):
        case zlink.ForeignSender(connection, claimed):
            assert (connection, claimed) == (3, 2)
        case other:
            pytest.fail(repr(other))
    assert a.stats()["follow"]["frames_foreign_sender"] == 1
    assert a.stats()["follow"]["delivered"] == 0
    assert isinstance(a.on_frame(2, sent.outbound.bytes), zlink.Deliver)
    del c


def test_session_send_and_push_refuse_a_payload_over_the_bound() -> None:
    _, (a, b) = world(2, RoutingConfig(max_message_bytes=8))
    b.activate("actor", "x")
    session = a.open_session(7, 1)
    end = b.owner_route_end("actor", "x")
    assert end is not None
    bind = a.bind(7, "x", end)
    reply = b.on_frame(1, bind.bytes)
    assert isinstance(reply, zlink.Send)
    assert isinstance(a.on_frame(2, reply.outbounds[0].bytes), zlink.Bound)
    with pytest.raises(zlink.SessionError) as e:
        a.session_send(7, "x", b"123456789")
    assert e.value.kind == "PayloadTooLarge"
    with pytest.raises(zlink.InputError) as i:
        b.push("x", session, b"123456789")
    assert i.value.kind == "PayloadTooLarge"
    assert isinstance(a.session_send(7, "x", b"12345678"), zlink.SessionSent)


def test_a_released_ids_generation_never_repeats_after_its_tombstone_expired() -> None:
    clock = zlink.ManualClock()
    store = zlink.MemoryStore(clock, tombstone_retention=1_000)
    rt = Runtime(NodeIdentity("main", 1), store=store, clock=clock)
    first = rt.activate("actor", "x").object_generation
    rt.begin_release("actor", "x")
    rt.complete_release("actor", "x")
    clock.advance(1_001)
    rt.activate("actor", "other")  # a write sweeps the expired tombstone
    again = rt.activate("actor", "x").object_generation
    assert again > first
