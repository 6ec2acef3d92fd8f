"""Owners fence themselves on a store recovery event (docs/runtime.md,
`OwnershipLost`; docs/location-store.md, "Failover and durability"), through
the installed wheel on a real redis-server: the store loses an owner's
record (as a failover to a stale replica does) and every client connection
is re-established (a new store epoch). The owner holds the frame that
arrives for the object, re-reads its record, finds it gone and gives the
object up."""

from __future__ import annotations

import subprocess
import time

import zlink

ACTOR = "actor"


def _cli(port: int, *args: str) -> str:
    return subprocess.run(
        ["redis-cli", "-p", str(port), *args], capture_output=True, text=True, check=True
    ).stdout


def test_an_owner_whose_record_a_recovery_lost_holds_then_gives_the_object_up(own_redis_server) -> None:  # type: ignore[no-untyped-def]
    def node(rid: int) -> zlink.Runtime:
        store = zlink.RedisStore(own_redis_server.url, prefix="fence", epoch_check_interval=50)
        return zlink.Runtime(zlink.NodeIdentity("main", rid), store=store)

    owner, sender = node(1), node(4)
    owner.activate(ACTOR, "x")
    owner.activate(ACTOR, "kept")
    to_x = sender.send(ACTOR, "x", b"m")
    to_kept = sender.send(ACTOR, "kept", b"m")
    assert isinstance(to_x, zlink.Submitted) and isinstance(to_kept, zlink.Submitted)

    _cli(own_redis_server.port, "DEL", "fence:{actor:x}")
    _cli(own_redis_server.port, "CLIENT", "KILL", "TYPE", "normal")
    time.sleep(0.5)  # the owner's store sees the new epoch (checked every 50 ms)

    assert isinstance(owner.on_frame(4, to_x.outbound.bytes), zlink.Held)
    assert isinstance(owner.on_frame(4, to_kept.outbound.bytes), zlink.Held)
    decided: list[object] = []
    give_up = time.monotonic() + 10
    while not any(isinstance(d, zlink.OwnershipLost) for d in decided) or not any(
        isinstance(d, zlink.Deliver) for d in decided
    ):
        assert time.monotonic() < give_up, decided
        deadline = owner.next_deadline()
        if deadline is not None and deadline <= owner.now():
            decided.extend(owner.on_timeout())
        time.sleep(0.005)

    lost = [d for d in decided if isinstance(d, zlink.OwnershipLost)]
    assert len(lost) == 1, decided
    match lost[0]:
        case zlink.OwnershipLost(kind="actor", id="x", reason="Missing"):
            pass
        case other:
            raise AssertionError(other)
    assert owner.owned(ACTOR, "x") is None
    assert owner.stats()["ownerships_lost"] == 1
    assert owner.owned(ACTOR, "kept") is not None, "its record still names node 1"
    refusals = [d for d in decided if isinstance(d, zlink.Reject)]
    assert len(refusals) == 1, decided
    ended = sender.on_frame(1, refusals[0].outbound.bytes)
    assert isinstance(ended, zlink.Ended) and ended.failure == "Unavailable", ended
