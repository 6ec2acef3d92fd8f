"""A small typed program over the `zlink` stubs; `mypy --strict` checks it
(scripts/test.sh)."""

from __future__ import annotations

import asyncio

import zlink
from zlink import Missing, ReadyRoute, StoreFailure, Unavailable


def describe(result: zlink.Resolution) -> str:
    match result:
        case ReadyRoute(mesh, node, fence):
            return f"{mesh}/{node} gen {fence.object_generation}"
        case Missing():
            return "missing"
        case Unavailable(reason):
            return f"unavailable: {reason}"
        case StoreFailure(kind, error):
            return f"store failure {kind}: {error}"


def main() -> None:
    clock = zlink.ManualClock()
    store = zlink.MemoryStore(clock)
    config = zlink.RoutingConfig(route_cache_max_age=10_000)
    owner = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store, clock=clock, config=config)
    sender = zlink.Runtime(zlink.NodeIdentity("main", 2), store=store, clock=clock)
    owned: zlink.OwnedObject = owner.activate("actor", "user-42")
    print(owned.state, describe(sender.resolve("actor", "user-42")))
    routes: list[zlink.Resolution] = sender.resolve_many("actor", ["user-42", "nobody"])
    print([describe(r) for r in routes])
    sent = sender.send("actor", "user-42", b"hi")
    if isinstance(sent, zlink.Submitted):
        inbound = owner.on_frame(2, sent.outbound.bytes)
        if isinstance(inbound, zlink.Deliver):
            print(inbound.operation.payload.decode())
    hits: int = sender.stats()["cache_hits"]
    print(hits, asyncio.run(sender.resolve_async("actor", "user-42")))
    frame = zlink.wire.decode(sent.outbound.bytes) if isinstance(sent, zlink.Submitted) else None
    if frame is not None:
        data: bytes = zlink.wire.encode(frame)
        print(frame.command, len(data))
    try:
        zlink.RoutingConfig(route_cache_max_age=60_000)
    except zlink.ConfigError as e:
        print("invalid:", e.kind)


if __name__ == "__main__":
    main()
