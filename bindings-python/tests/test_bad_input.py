"""Bad input raises the documented exceptions: TypeError for wrong Python
types, InputError / ConfigError (both ValueError) for values the core
refuses, all but TypeError rooted at zlink.ZlinkError."""

from __future__ import annotations

from typing import Any

import pytest

import zlink
from zlink import ConfigError, InputError, RoutingConfig


@pytest.fixture
def rt() -> zlink.Runtime:
    return zlink.Runtime(zlink.NodeIdentity("main", 1), clock=zlink.ManualClock())


def test_hierarchy() -> None:
    for cls in (zlink.ConfigError, zlink.InputError, zlink.StoreError, zlink.LifecycleError,
                zlink.WireError, zlink.ReplyRouteError, zlink.ForkedRuntimeError,
                zlink.RelocationError, zlink.SessionError):
        assert issubclass(cls, zlink.ZlinkError)
    for cls in (zlink.ConfigError, zlink.InputError, zlink.WireError):
        assert issubclass(cls, ValueError)


@pytest.mark.parametrize("args", [(1, "x"), ("spot", 1), ("spot", b"x"), (None, "x")])
def test_wrong_types_raise_type_error(rt: zlink.Runtime, args: tuple[Any, Any]) -> None:
    with pytest.raises(TypeError):
        rt.resolve(*args)


def test_payload_must_be_bytes(rt: zlink.Runtime) -> None:
    with pytest.raises(TypeError):
        rt.send("spot", "x", "text")  # type: ignore[arg-type]


def test_empty_id(rt: zlink.Runtime) -> None:
    for call in (rt.resolve, rt.lookup_cached, rt.activate):
        with pytest.raises(InputError) as caught:
            call("spot", "")
        assert caught.value.kind == "EmptyObjectId"


def test_id_over_the_cap() -> None:
    rt = zlink.Runtime(zlink.NodeIdentity("main", 1), config=RoutingConfig(max_object_id_bytes=8))
    with pytest.raises(InputError) as caught:
        rt.resolve("actor", "x" * 9)
    assert caught.value.kind == "ObjectIdTooLong"
    assert isinstance(rt.resolve("actor", "x" * 8), zlink.Missing)


def test_unknown_kind(rt: zlink.Runtime) -> None:
    with pytest.raises(InputError) as caught:
        rt.resolve("user", "x")  # type: ignore[arg-type]
    assert caught.value.kind == "UnknownObjectKind"


@pytest.mark.parametrize(
    "kwargs, kind",
    [
        ({"route_cache_max_age": 26_000}, "CacheOutlivesFollow"),
        ({"max_follow_hops": 9}, "FollowHops"),
        ({"max_follow_hops": 0}, "FollowHops"),
        ({"store_timeout": 0}, "ZeroDuration"),
        ({"route_cache_capacity": 0}, "ZeroCapacity"),
        ({"store_attempts": 0}, "ZeroStoreAttempts"),
        ({"max_object_id_bytes": 0}, "ObjectIdCap"),
        ({"max_message_bytes": 0}, "MessageBound"),
        ({"relocation_timeout": 0}, "ZeroDuration"),
        ({"max_relocation_state_bytes": 0}, "StateBound"),
        ({"max_relocation_state_bytes": (1 << 30) + 1}, "StateBound"),
        ({"route_cache_max_age": -1}, "Negative"),
        ({"max_follow_hops": 300}, "OutOfRange"),
    ],
)
def test_invalid_config(kwargs: dict[str, int], kind: str) -> None:
    with pytest.raises(ConfigError) as caught:
        RoutingConfig(**kwargs)
    assert caught.value.kind == kind
    assert str(caught.value)


def test_config_is_keyword_only_and_in_milliseconds() -> None:
    with pytest.raises(TypeError):
        RoutingConfig(15_000)  # type: ignore[misc]
    c = RoutingConfig(route_cache_max_age=0, message_follow_duration=3_000)
    assert (c.route_cache_max_age, c.message_follow_duration) == (0, 3_000)
    assert RoutingConfig() == RoutingConfig()
    assert "route_cache_max_age=15000" in repr(RoutingConfig())


def test_update_config_validates(rt: zlink.Runtime) -> None:
    rt.update_config(RoutingConfig(route_cache_max_age=5_000))
    assert rt.config.route_cache_max_age == 5_000


def test_cache_capacity_goes_down_and_back_up_but_not_above_the_built_one(
    rt: zlink.Runtime,
) -> None:
    built = rt.config.route_cache_capacity
    rt.update_config(rt.config.replace(route_cache_capacity=8))
    assert rt.config.route_cache_capacity == 8
    rt.update_config(rt.config.replace(route_cache_capacity=built))
    with pytest.raises(ConfigError) as caught:
        rt.update_config(rt.config.replace(route_cache_capacity=built + 1))
    assert caught.value.kind == "CapacityAboveBuilt"
    assert rt.config.route_cache_capacity == built


def test_payload_over_the_bound(rt: zlink.Runtime) -> None:
    small = zlink.Runtime(zlink.NodeIdentity("main", 1), config=RoutingConfig(max_message_bytes=4))
    with pytest.raises(InputError) as caught:
        small.send("spot", "x", b"12345")
    assert caught.value.kind == "PayloadTooLarge"


def test_zero_deadline_and_actor_instance_intent(rt: zlink.Runtime) -> None:
    with pytest.raises(InputError) as caught:
        rt.send("spot", "x", b"", deadline=0)
    assert caught.value.kind == "ZeroDeadline"
    with pytest.raises(InputError) as caught:
        rt.send("actor", "x", b"", instance_intent=True)
    assert caught.value.kind == "InstanceIntentOnActor"
    with pytest.raises(InputError):
        rt.request("spot", "x", b"", timeout=-5)


def test_mesh_name(rt: zlink.Runtime) -> None:
    with pytest.raises(InputError):
        zlink.NodeIdentity("", 1)
    with pytest.raises(InputError):
        zlink.NodeIdentity("m" * 24, 1)
    with pytest.raises(OverflowError):
        zlink.NodeIdentity("m", -1)


def test_lifecycle_errors(rt: zlink.Runtime) -> None:
    rt.activate("spot", "s")
    with pytest.raises(zlink.LifecycleError) as caught:
        rt.create("spot", "s")
    assert caught.value.kind == "AlreadyExists"
    other = zlink.Runtime(zlink.NodeIdentity("main", 2))
    with pytest.raises(zlink.LifecycleError) as caught:
        other.begin_release("spot", "s")
    assert caught.value.kind == "NotOwned"


def test_reply_to_a_one_way_message(rt: zlink.Runtime) -> None:
    rt.activate("spot", "s")
    sent = rt.send("spot", "s", b"x")
    assert isinstance(sent, zlink.Submitted)
    d = rt.on_frame(1, sent.outbound.bytes)
    assert isinstance(d, zlink.Deliver)
    with pytest.raises(zlink.ReplyRouteError) as caught:
        rt.reply(d.operation, b"y")
    assert caught.value.kind == "OneWay"
    with pytest.raises(InputError):
        rt.reply(d.operation)


def test_redis_store_bad_url_and_unreachable() -> None:
    with pytest.raises(zlink.StoreError) as caught:
        zlink.RedisStore("http://nope")
    assert caught.value.kind == "Config"
    with pytest.raises(zlink.StoreError):
        zlink.RedisStore("redis://127.0.0.1:1", connect_timeout=200)
    with pytest.raises(zlink.StoreError):
        zlink.RedisStore("redis://127.0.0.1:1", prefix="{bad}")
    with pytest.raises(OverflowError):
        zlink.RedisStore("redis://127.0.0.1:1", thread_connections=-1)


@pytest.mark.parametrize(
    ("write_acks", "says"),
    [
        (0, "asks for 0 replicas: at least 1"),
        (-2, "asks for -2 replicas: at least 1"),
        (2**32, "at most 4294967295"),
        ("bogus", 'got "bogus"'),
        ("allReplicas", 'got "allReplicas"'),
    ],
)
def test_redis_store_bad_write_acks_is_a_config_error(write_acks: object, says: str) -> None:
    # Refused before connecting: nothing listens on port 1.
    with pytest.raises(zlink.StoreError) as caught:
        zlink.RedisStore("redis://127.0.0.1:1", write_acks=write_acks)  # type: ignore[arg-type]
    assert caught.value.kind == "Config"
    assert says in str(caught.value)


def test_redis_store_write_acks_of_another_type_and_bad_timeouts() -> None:
    for wrong in (1.5, True, object(), [1]):
        with pytest.raises(TypeError, match="write_acks must be"):
            zlink.RedisStore("redis://127.0.0.1:1", write_acks=wrong)  # type: ignore[arg-type]
    with pytest.raises(OverflowError):
        zlink.RedisStore("redis://127.0.0.1:1", write_acks=2**70)
    with pytest.raises(OverflowError):
        zlink.RedisStore("redis://127.0.0.1:1", write_ack_timeout=-1)
    with pytest.raises(zlink.StoreError, match="write_ack_timeout must be more than 0") as caught:
        zlink.RedisStore("redis://127.0.0.1:1", write_ack_timeout=0)
    assert caught.value.kind == "Config"


def test_wrong_store_and_clock_types() -> None:
    with pytest.raises(TypeError):
        zlink.Runtime(zlink.NodeIdentity("main", 1), store=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        zlink.Runtime(zlink.NodeIdentity("main", 1), clock="now")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        zlink.Runtime("main")  # type: ignore[arg-type]
