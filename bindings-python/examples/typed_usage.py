"""A small typed program over the `zlink` stubs; `mypy --strict` checks it
(scripts/test.sh)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, generate_latest

import zlink
from zlink.metrics import ZlinkCollector
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


def carry(nodes: dict[int, zlink.Runtime], sender: int,
          frames: Iterable[zlink.Outbound]) -> list[zlink.Deliver]:
    """Carries frames (and every answer) until none is left, as a host
    would: restores a relocated object, queues what is delivered."""
    queue = deque((sender, f) for f in frames)
    delivered: list[zlink.Deliver] = []
    while queue:
        by, out = queue.popleft()
        at = out.to.rid
        match nodes[at].on_frame(by, out.bytes):
            case zlink.Relocation(zlink.RelocationRestore(identity, _, _, state), _, send):
                queue.extend((at, f) for f in send)
                print("restoring", identity.id, len(state), "bytes")
                restored = nodes[at].relocation_restored(identity.kind, identity.id)
                queue.extend((at, f) for f in restored)
            case zlink.Relocation(event, deliver, send):
                print(type(event).__name__, event.identity.relocation)
                delivered.extend(deliver)
                queue.extend((at, f) for f in send)
            case zlink.Deliver() as d:
                delivered.append(d)
            case zlink.Held():
                pass
            case zlink.Send(more):
                queue.extend((at, f) for f in more)
            case _:
                pass
    return delivered


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

    # Move the actor to node 3 with its state; the host carries the frames.
    target = zlink.Runtime(zlink.NodeIdentity("main", 3), store=store, clock=clock)
    nodes = {1: owner, 2: sender, 3: target}
    started: zlink.RelocationStarted = owner.begin_relocation(
        "actor", "user-42", 3, target.identity.generation, state=b"counter=1")
    moved = carry(nodes, 1, started.send)
    print("delivered after the move:", [d.operation.payload for d in moved])
    try:
        owner.relocation_restored("actor", "user-42")
    except zlink.RelocationError as e:
        print("refused:", e.kind, e.refusal)

    # Metrics: a prometheus_client collector, or the text exposition.
    registry = CollectorRegistry()
    registry.register(ZlinkCollector(owner))
    print(generate_latest(registry).decode().count("zlink_"), "zlink metric lines")
    reads: list[zlink.MetricFamily] = [
        f for f in sender.metrics() if f.name == "zlink_store_read_duration_seconds"]
    print("store reads timed:", reads[0].samples[0].value)


if __name__ == "__main__":
    main()
