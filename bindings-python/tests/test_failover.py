"""Issue 27's scenario through the installed wheel, on a real Redis Sentinel
group and a real Redis Cluster with replicas (docs/location-store.md,
"Failover and durability"). The `zlink-failover` kit (testkit) runs the
servers: it cuts object `x`'s replica off, then kills `x`'s primary and waits
until the stale replica is promoted, so a write only the primary had is lost.

With durable writes (the default), node A's activation reaches no replica,
so A never acts on it; after the failover, B owns `x` alone: no two owners
deliver."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import zlink

ACTOR = "actor"
REPO = Path(__file__).resolve().parents[2]
USABLE_AGAIN = 20.0  # seconds after the primary's death


def _kit_path() -> Path:
    given = os.environ.get("ZLINK_FAILOVER_KIT")
    path = Path(given) if given else REPO / "target" / "debug" / "zlink-failover"
    if not path.is_file():
        pytest.fail(
            f"no failover kit at {path}: build it with "
            "`cargo build -p zlink-testkit --bin zlink-failover` (scripts/test.sh does)"
        )
    return path


class FailoverKit:
    """The `zlink-failover` process: a deployment whose primary for `x`
    fails over to a stale replica on command. Closing it stops every server."""

    def __init__(self, deployment: str) -> None:
        self.proc = subprocess.Popen(
            [str(_kit_path()), deployment],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        ready = self._line()
        assert ready.startswith("ready "), ready
        self.url = ready.removeprefix("ready ")

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the failover kit ended (exit {self.proc.wait()})")
        return line.strip()

    def command(self, name: str) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write(name + "\n")
        self.proc.stdin.flush()
        answer = self._line()
        assert answer.startswith("ok"), f"{name}: {answer}"
        return answer

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(params=["sentinel", "cluster"])
def kit(request: pytest.FixtureRequest) -> Iterator[FailoverKit]:
    kit = FailoverKit(request.param)
    try:
        yield kit
    finally:
        kit.close()


def _node(url: str, rid: int) -> zlink.Runtime:
    """Node `rid` with a store connection of its own, as each process has."""
    store = zlink.RedisStore(
        url,
        connect_timeout=500,
        response_timeout=1000,
        epoch_check_interval=200,
        write_ack_timeout=300,
    )
    return zlink.Runtime(zlink.NodeIdentity("failover", rid), store=store)


def _delivers(rt: zlink.Runtime, sender: int, frame: bytes) -> bool:
    """Whether `rt` delivers `frame`: at once, or once the work it held
    (a node whose write was answered across the failover re-checks it
    first) is released by `on_timeout`."""
    first = rt.on_frame(sender, frame)
    if not isinstance(first, zlink.Held):
        return isinstance(first, zlink.Deliver)
    give_up = time.monotonic() + 10
    while time.monotonic() < give_up:
        deadline = rt.next_deadline()
        if deadline is not None and deadline <= rt.now():
            decided = rt.on_timeout()
            if decided:
                return any(isinstance(d, zlink.Deliver) for d in decided)
        time.sleep(0.005)
    return False


def test_a_write_no_replica_acknowledged_is_never_acted_on_so_one_owner_remains(
    kit: FailoverKit,
) -> None:
    a, b, d = _node(kit.url, 1), _node(kit.url, 2), _node(kit.url, 4)
    try:
        kit.command("cut-off")
        started = time.monotonic()
        with pytest.raises(zlink.LifecycleError, match="not acknowledged by enough replicas") as unknown:
            a.activate(ACTOR, "x")
        assert unknown.value.kind == "Store", unknown.value
        assert time.monotonic() - started < 5, "unknown in bounded time"
        assert a.owned(ACTOR, "x") is None, "the writer does not act as owner"
        # The primary holds A's unacknowledged Creating record: no route.
        none = d.send(ACTOR, "x", b"m")
        assert isinstance(none, zlink.Unavailable) and none.reason == "Creating", none

        kit.command("fail-over")
        died = time.monotonic()
        while True:
            try:
                b.activate(ACTOR, "x")
                break
            except zlink.ZlinkError as e:
                assert time.monotonic() - died < USABLE_AGAIN, f"x not usable again: {e}"
                time.sleep(0.1)

        to_b = d.send(ACTOR, "x", b"m")
        assert isinstance(to_b, zlink.Submitted), to_b
        assert to_b.outbound.to.rid == 2
        assert _delivers(b, 4, to_b.outbound.bytes)
        # A never owned x: the same frame reaching A is not delivered.
        assert a.owned(ACTOR, "x") is None
        assert not isinstance(a.on_frame(4, to_b.outbound.bytes), zlink.Deliver)
    finally:
        for rt in (a, b, d):
            rt.close()
