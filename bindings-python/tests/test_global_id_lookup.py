"""Spec §5 "Global ID Lookup", one bullet to one test (or a few), through the
Python API on a ManualClock; every test runs on a MemoryStore and on a real
Redis server (the `make_world` fixture)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import pytest

import zlink
from zlink import (
    Deliver,
    Ended,
    Missing,
    ReadyRoute,
    Reject,
    RoutingConfig,
    Submitted,
    Unavailable,
)

from carrier import relocate
from conftest import World

SPOT, ACTOR = "spot", "actor"


def reads(rt: zlink.Runtime) -> int:
    return int(rt.stats()["store_reads"])


def test_direct_call_takes_only_a_global_id(world: World) -> None:
    owner, sender = world.node(1), world.node(2)
    owner.activate(ACTOR, "user-42")
    sent = sender.send(ACTOR, "user-42", b"hello")
    assert isinstance(sent, Submitted)
    assert sent.outbound.to.rid == 1
    match owner.on_frame(2, sent.outbound.bytes):
        case Deliver(operation, _):
            assert (operation.kind, operation.id, operation.payload) == (ACTOR, "user-42", b"hello")
            assert operation.operation_id == sent.operation_id
        case other:
            pytest.fail(f"not delivered: {other!r}")


def test_cache_hit_does_not_read_the_store(world: World) -> None:
    owner, sender = world.node(1), world.node(2)
    owner.activate(SPOT, "room-1")
    first = sender.resolve(SPOT, "room-1")
    assert isinstance(first, ReadyRoute) and first.node == 1
    before = reads(sender)
    for _ in range(100):
        assert sender.resolve(SPOT, "room-1") == first
    assert sender.lookup_cached(SPOT, "room-1") == first
    assert reads(sender) == before
    assert sender.stats()["cache_hits"] >= 101


def test_store_is_read_after_a_miss_or_an_invalidation(world: World) -> None:
    owner, sender = world.node(1), world.node(2)
    owner.activate(SPOT, "room-1")
    assert sender.lookup_cached(SPOT, "room-1") is None
    sender.resolve(SPOT, "room-1")
    assert reads(sender) == 1
    assert sender.on_store_recovery() == 1
    assert sender.lookup_cached(SPOT, "room-1") is None
    assert isinstance(sender.resolve(SPOT, "room-1"), ReadyRoute)
    assert reads(sender) == 2


def test_missing_and_creating_are_not_negative_cached(world: World) -> None:
    owner, sender = world.node(1), world.node(2)
    assert sender.resolve(ACTOR, "a") == Missing()
    assert sender.resolve(ACTOR, "a") == Missing()
    assert reads(sender) == 2
    owner.create(ACTOR, "a")
    assert sender.resolve(ACTOR, "a") == sender.resolve(ACTOR, "a")
    match sender.resolve(ACTOR, "a"):
        case Unavailable(reason):
            assert reason == "Creating"
        case other:
            pytest.fail(repr(other))
    assert reads(sender) == 5
    owner.publish_ready(ACTOR, "a")
    assert isinstance(sender.resolve(ACTOR, "a"), ReadyRoute)


def test_store_failure_is_not_negative_cached(own_redis_server) -> None:  # type: ignore[no-untyped-def]
    clock = zlink.ManualClock()
    store = zlink.RedisStore(own_redis_server.url, connect_timeout=500, response_timeout=300)
    config = RoutingConfig(store_timeout=300)
    owner = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store, clock=clock, config=config)
    sender = zlink.Runtime(zlink.NodeIdentity("main", 2), store=store, clock=clock, config=config)
    owner.activate(SPOT, "s")
    own_redis_server.stop()
    failed = sender.resolve(SPOT, "s")
    assert isinstance(failed, zlink.StoreFailure), failed
    assert failed.kind in ("Timeout", "Unreachable")
    assert sender.lookup_cached(SPOT, "s") is None
    again = sender.resolve(SPOT, "s")
    assert isinstance(again, zlink.StoreFailure)
    assert sender.stats()["store_reads"] == 2, "each failure asks the store again"


def _connections(port: int) -> int:
    """Client connections the server has open now (redis-cli's own included)."""
    import subprocess

    listed = subprocess.run(
        ["redis-cli", "-p", str(port), "CLIENT", "LIST"], capture_output=True, text=True, check=True
    ).stdout
    return sum(1 for line in listed.splitlines() if line.startswith("id="))


def _connections_become(port: int, n: int) -> int:
    """Polls until the server has `n` connections (a closed one goes a moment later)."""
    import time

    give_up = time.monotonic() + 5
    while True:
        now = _connections(port)
        if now == n or time.monotonic() > give_up:
            return now
        time.sleep(0.02)


@pytest.mark.parametrize("seats", [0, 1])
def test_at_most_thread_connections_blocked_threads_read_on_their_own(redis_server, seats: int) -> None:  # type: ignore[no-untyped-def]
    import threading

    store = zlink.RedisStore(redis_server.url, prefix=f"seats{seats}", thread_connections=seats)
    owner = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store)
    sender = zlink.Runtime(zlink.NodeIdentity("main", 2), store=store)
    ids = [f"t{i}" for i in range(3)]
    for i in ids:
        owner.activate(ACTOR, i)
    before = _connections(redis_server.port)
    answers: dict[str, object] = {}
    resolved = threading.Barrier(len(ids) + 1)
    done = threading.Event()

    def resolve(i: str) -> None:
        answers[i] = sender.resolve(ACTOR, i)
        resolved.wait()
        done.wait()  # the thread, and so its connection, lives until counted

    threads = [threading.Thread(target=resolve, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    resolved.wait()
    try:
        assert _connections_become(redis_server.port, before + seats) == before + seats
    finally:
        done.set()
        for t in threads:
            t.join()
    assert all(isinstance(answers[i], ReadyRoute) for i in ids), answers
    assert sender.stats()["store_reads"] == len(ids)


@pytest.mark.parametrize(
    ("write_acks", "timeout"),
    [(None, None), ("all_replicas", 500), ("primary_only", 0)],
    ids=["default", "all_replicas", "primary_only"],
)
def test_a_store_with_write_acks_activates_and_resolves(  # type: ignore[no-untyped-def]
    redis_server, write_acks: Literal["all_replicas", "primary_only"] | None, timeout: int | None
) -> None:
    # One server without replicas: no write waits for any (and a
    # primary_only store waits for none, so a zero ack timeout is allowed).
    store = zlink.RedisStore(
        redis_server.url, prefix=f"acks-{write_acks}", write_acks=write_acks, write_ack_timeout=timeout
    )
    owner = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store)
    sender = zlink.Runtime(zlink.NodeIdentity("main", 2), store=store)
    owner.activate(ACTOR, "a")
    assert isinstance(sender.resolve(ACTOR, "a"), ReadyRoute)


def test_more_write_acks_than_the_server_has_replicas_is_a_config_error(redis_server) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(zlink.StoreError, match="has 0") as caught:
        zlink.RedisStore(redis_server.url, write_acks=5)
    assert caught.value.kind == "Config"


def test_positive_cache_is_bounded_by_route_cache_max_age(make_world: Callable[..., World]) -> None:
    world = make_world(RoutingConfig(route_cache_max_age=1_000))
    owner, sender = world.node(1), world.node(2)
    owner.activate(SPOT, "s")
    sender.resolve(SPOT, "s")
    world.clock.advance(900)
    assert sender.lookup_cached(SPOT, "s") is not None
    world.clock.advance(101)
    assert sender.lookup_cached(SPOT, "s") is None
    sender.resolve(SPOT, "s")
    assert reads(sender) == 2


def test_positive_cache_never_outlives_the_admission_deadline(make_world: Callable[..., World]) -> None:
    world = make_world(RoutingConfig(route_cache_max_age=15_000, owner_lease_duration=3_000))
    owner, sender = world.node(1), world.node(2)
    owner.activate(SPOT, "s")
    route = sender.resolve(SPOT, "s")
    assert isinstance(route, ReadyRoute)
    assert route.admission_deadline_ms <= world.clock.now_ms() + 3_000
    world.clock.advance(3_000)
    assert sender.lookup_cached(SPOT, "s") is None


def test_higher_store_version_replaces_the_cached_route(world: World) -> None:
    a, b, c = world.node(1), world.node(2), world.node(3)
    a.activate(ACTOR, "x")
    old = b.resolve(ACTOR, "x")
    assert isinstance(old, ReadyRoute) and old.node == 1
    relocate(a, c, ACTOR, "x")
    assert b.lookup_cached(ACTOR, "x") == old, "nothing told b yet"
    b.on_store_recovery()
    new = b.resolve(ACTOR, "x")
    assert isinstance(new, ReadyRoute) and new.node == 3
    assert new.fence.store_version > old.fence.store_version
    assert new.authority_owner_generation == old.authority_owner_generation + 1


def test_stale_route_result_invalidates_the_entry_and_ends_the_operation(world: World) -> None:
    # Without Message Follow the old owner refuses what still comes to it.
    a = world.node(1, config=RoutingConfig(message_follow_duration=0))
    b, c = world.node(2), world.node(3)
    a.activate(ACTOR, "x")
    b.resolve(ACTOR, "x")
    relocate(a, c, ACTOR, "x")
    sent = b.send(ACTOR, "x", b"m")
    assert isinstance(sent, Submitted) and sent.outbound.to.rid == 1
    refusal = a.on_frame(2, sent.outbound.bytes)
    assert isinstance(refusal, Reject)
    ended = b.on_frame(1, refusal.outbound.bytes)
    match ended:
        case Ended(operation_id, failure, reason):
            assert operation_id == sent.operation_id
            assert (failure, reason) == ("Unavailable", "StaleRoute")
        case other:
            pytest.fail(repr(other))
    assert b.lookup_cached(ACTOR, "x") is None
    assert b.stats()["invalidations"]["stale_route"] == 1
    fresh = b.resolve(ACTOR, "x")
    assert isinstance(fresh, ReadyRoute) and fresh.node == 3


def test_owner_lease_invalidation_removes_routes(world: World) -> None:
    a, b = world.node(1, lease=7), world.node(2)
    a.activate(SPOT, "s1")
    a.activate(SPOT, "s2")
    b.resolve(SPOT, "s1")
    b.resolve(SPOT, "s2")
    assert b.on_owner_lease_invalidated(1, 7) == 2
    assert b.lookup_cached(SPOT, "s1") is None
    match b.resolve(SPOT, "s1"):
        case Unavailable("OwnerNotLive"):
            pass
        case other:
            pytest.fail(repr(other))


def test_missing_and_unavailable_are_distinct_tags(world: World) -> None:
    a, b = world.node(1), world.node(2)
    a.activate(SPOT, "s")
    a.begin_release(SPOT, "s")
    releasing = b.resolve(SPOT, "s")
    a.complete_release(SPOT, "s")
    gone = b.resolve(SPOT, "s")
    assert isinstance(releasing, Unavailable) and releasing.reason == "Releasing"
    assert isinstance(gone, Missing)
    assert releasing != gone
    assert type(releasing) is not type(gone)
    stats = b.stats()["resolutions"]
    assert (stats["missing"], stats["unavailable"]) == (1, 1)


def test_route_cache_lifetime_never_exceeds_message_follow_duration(
    make_world: Callable[..., World],
) -> None:
    with pytest.raises(zlink.ConfigError):
        RoutingConfig(route_cache_max_age=26_000, message_follow_duration=30_000)
    world = make_world(RoutingConfig(route_cache_max_age=25_000, message_follow_duration=30_000))
    a, b = world.node(1, config=RoutingConfig(route_cache_max_age=25_000, owner_lease_duration=60_000,
                                              message_follow_duration=30_000)), world.node(2)
    a.activate(SPOT, "s")
    b.resolve(SPOT, "s")
    world.clock.advance(25_000)
    assert b.lookup_cached(SPOT, "s") is None


def test_target_admission_checks_owner_generation_and_lease_fence(world: World) -> None:
    a = world.node(1, config=RoutingConfig(message_follow_duration=0))
    b, c = world.node(2), world.node(3)
    a.activate(ACTOR, "x")
    route = b.resolve(ACTOR, "x")
    sent = b.send(ACTOR, "x", b"1")
    assert isinstance(sent, Submitted) and isinstance(route, ReadyRoute)
    assert isinstance(a.on_frame(2, sent.outbound.bytes), Deliver)
    # After a relocation a -> c (no Message Follow), the old route is
    # refused by its old owner.
    relocate(a, c, ACTOR, "x")
    assert isinstance(a.on_frame(2, sent.outbound.bytes), Reject)


def test_new_incarnation_accepts_a_message_for_the_old_one(world: World) -> None:
    """§2.6: ObjectGeneration is not a target condition; no retarget."""
    a, b = world.node(1), world.node(2)
    first = a.activate(SPOT, "s")
    sent = b.send(SPOT, "s", b"m")
    assert isinstance(sent, Submitted)
    a.begin_release(SPOT, "s")
    a.complete_release(SPOT, "s")
    second = a.activate(SPOT, "s")
    assert second.object_generation > first.object_generation
    match a.on_frame(2, sent.outbound.bytes):
        case Deliver(operation, object_generation):
            assert object_generation == second.object_generation
            assert operation.object_generation == first.object_generation
        case other:
            pytest.fail(repr(other))


def test_message_follow_relays_and_refreshes_the_sender(world: World) -> None:
    a, b, c = world.node(1), world.node(2), world.node(3)
    a.activate(ACTOR, "x")
    b.resolve(ACTOR, "x")
    sent = b.send(ACTOR, "x", b"late")
    assert isinstance(sent, Submitted)
    # The move installs a Message Follow route on the source at its handoff.
    relocate(a, c, ACTOR, "x")
    end = c.owner_route_end(ACTOR, "x")
    assert end is not None and end.node.rid == 3
    relay = a.on_frame(2, sent.outbound.bytes)
    assert isinstance(relay, zlink.Relay)
    assert relay.forward.to.rid == 3 and relay.notice is not None
    delivered = c.on_frame(1, relay.forward.bytes)
    assert isinstance(delivered, Deliver) and delivered.operation.payload == b"late"
    assert delivered.operation.operation_id == sent.operation_id
    a.notice_settled(relay.notice.token, True)
    refreshed = b.on_frame(1, relay.notice.outbound.bytes)
    assert isinstance(refreshed, zlink.RouteRefreshed) and refreshed.invalidated
    assert b.lookup_cached(ACTOR, "x") is None
    now = b.resolve(ACTOR, "x")
    assert isinstance(now, ReadyRoute) and now.node == 3


def test_request_reply_uses_the_reply_route(world: World) -> None:
    a, b = world.node(1), world.node(2)
    a.activate(SPOT, "s")
    req = b.request(SPOT, "s", b"ping")
    assert isinstance(req, Submitted) and req.correlation is not None
    delivered = a.on_frame(2, req.outbound.bytes)
    assert isinstance(delivered, Deliver) and delivered.operation.is_request
    out = a.reply(delivered.operation, b"pong")
    assert out.to.rid == 2
    done = b.on_frame(1, out.bytes)
    assert isinstance(done, zlink.Completed)
    assert done.completion.correlation == req.correlation
    match done.completion.outcome:
        case zlink.Reply(payload):
            assert payload == b"pong"
        case other:
            pytest.fail(repr(other))
    assert b.on_frame(1, out.bytes) == b.on_frame(1, out.bytes)
    assert isinstance(b.on_frame(1, out.bytes), zlink.Late)
    assert b.pending_requests() == 0


def test_request_ends_once_cancel_timeout_shutdown(world: World) -> None:
    a, b = world.node(1), world.node(2)
    a.activate(SPOT, "s")
    r1 = b.request(SPOT, "s", b"1", timeout=1_000)
    r2 = b.request(SPOT, "s", b"2", timeout=5_000)
    r3 = b.request(SPOT, "s", b"3", timeout=5_000)
    assert isinstance(r1, Submitted) and isinstance(r2, Submitted) and isinstance(r3, Submitted)
    assert r2.correlation is not None
    cancelled = b.cancel(r2.correlation)
    assert cancelled is not None and isinstance(cancelled.outcome, zlink.Cancelled)
    assert b.cancel(r2.correlation) is None
    world.clock.advance(1_001)
    expired = [d.completion for d in b.on_timeout()]
    assert [c.correlation for c in expired] == [r1.correlation]
    assert isinstance(expired[0].outcome, zlink.Timeout)
    [down] = b.shutdown_requests()
    assert down.correlation == r3.correlation and down.outcome == zlink.Shutdown()
    q = b.stats()["requests"]
    assert (q["sent"], q["cancelled"], q["timeouts"], q["shutdown"]) == (3, 1, 1, 1)


def test_error_reply(world: World) -> None:
    a, b = world.node(1), world.node(2)
    a.activate(SPOT, "s")
    req = b.request(SPOT, "s", b"?")
    assert isinstance(req, Submitted)
    d = a.on_frame(2, req.outbound.bytes)
    assert isinstance(d, Deliver)
    out = a.reply(d.operation, error_kind="Handler", code=7, message="boom")
    done = b.on_frame(1, out.bytes)
    assert isinstance(done, zlink.Completed)
    match done.completion.outcome:
        case zlink.Error("Handler"):
            assert done.completion.outcome.code == 7
            assert done.completion.outcome.message == "boom"
        case other:
            pytest.fail(repr(other))


def test_send_to_missing_is_not_found_or_cold_activation(world: World) -> None:
    b = world.node(2)
    assert b.send(SPOT, "nobody", b"") == zlink.NotFound()
    assert b.send(SPOT, "nobody", b"", instance_intent=True) == zlink.ColdActivation()


def test_resolve_many_matches_resolve(world: World) -> None:
    a, b = world.node(1), world.node(2)
    ids = [f"s{i}" for i in range(20)]
    for i in ids[:10]:
        a.activate(SPOT, i)
    many = b.resolve_many(SPOT, ids)
    assert many == [b.resolve(SPOT, i) for i in ids]
    assert all(isinstance(r, ReadyRoute) for r in many[:10])
    assert all(isinstance(r, Missing) for r in many[10:])
    assert b.resolve_many(SPOT, iter(ids[:3])) == many[:3]


def test_lookup_cached_many_matches_lookup_cached(world: World) -> None:
    a, b = world.node(1), world.node(2)
    ids = [f"c{i}" for i in range(20)]
    for i in ids[:10]:
        a.activate(SPOT, i)
    b.resolve_many(SPOT, ids)
    many = b.lookup_cached_many(SPOT, ids)
    assert many == [b.lookup_cached(SPOT, i) for i in ids]
    assert all(isinstance(r, ReadyRoute) for r in many[:10])
    assert many[10:] == [None] * 10
    assert b.lookup_cached_many(SPOT, (i for i in ids[:2])) == many[:2]
    with pytest.raises(zlink.InputError):
        b.lookup_cached_many(SPOT, ["ok", ""])
