"""Result objects are immutable values: repr, ==, hash, match."""

from __future__ import annotations

import pytest

import zlink


@pytest.fixture
def route() -> zlink.ReadyRoute:
    clock = zlink.ManualClock()
    store = zlink.MemoryStore(clock)
    a = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store, clock=clock)
    a.activate("actor", "u")
    r = zlink.Runtime(zlink.NodeIdentity("main", 2), store=store, clock=clock).resolve("actor", "u")
    assert isinstance(r, zlink.ReadyRoute)
    return r


def test_frozen(route: zlink.ReadyRoute) -> None:
    with pytest.raises(AttributeError):
        route.node = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        route.fence.store_version = 0  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        zlink.Missing().x = 1  # type: ignore[attr-defined]


def test_repr_eq_hash(route: zlink.ReadyRoute) -> None:
    assert repr(route).startswith('ReadyRoute(mesh="main", node=1, fence=RouteFence(')
    assert repr(zlink.Missing()) == "Missing()"
    assert zlink.Missing() == zlink.Missing()
    assert len({zlink.Missing(), zlink.Missing()}) == 1
    assert route == route and hash(route) == hash(route)
    assert route != zlink.Missing()
    assert {route: 1}[route] == 1


def test_match(route: zlink.ReadyRoute) -> None:
    match route:
        case zlink.ReadyRoute(mesh, node, zlink.RouteFence(object_generation=g)):
            assert (mesh, node, g) == ("main", 1, route.object_generation)
        case _:
            pytest.fail("no match")
    match zlink.Missing():
        case zlink.Unavailable(reason):
            pytest.fail(reason)
        case zlink.Missing():
            pass


def test_identity_and_clocks() -> None:
    me = zlink.NodeIdentity("main", 4, 2, 9)
    assert (me.mesh, me.rid, me.generation, me.lease) == ("main", 4, 2, 9)
    assert me == zlink.NodeIdentity("main", 4, 2, 9)
    assert repr(me) == 'NodeIdentity(mesh="main", rid=4, generation=2, lease=9)'
    c = zlink.ManualClock()
    c.advance(1500)
    assert c.now_ms() == 1500
    assert zlink.SystemClock().now_ms() >= 0
    rt = zlink.Runtime(me)
    assert rt.identity == me
    assert "rid=4" in repr(rt)


def test_stats_is_a_dict() -> None:
    rt = zlink.Runtime(zlink.NodeIdentity("main", 1))
    rt.resolve("spot", "x")
    s = rt.stats()
    assert s["cache_misses"] == 1 and s["resolutions"]["missing"] == 1
    assert set(s["invalidations"]) == {
        "higher_store_version", "stale_route", "store_recovery",
        "owner_lease_invalidated", "relay_notification",
    }
    assert {"follow", "requests", "sessions", "relocation"} <= set(s)
    assert set(s["relocation"]) == {
        "begun", "restores", "committed", "handed_off", "aborted", "failed", "held",
        "relayed", "control_refused",
    }
    assert {"relocation_sources", "relocation_targets", "relocation_deadlines"} <= set(s["tables"])
