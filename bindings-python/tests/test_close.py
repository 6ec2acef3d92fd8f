"""Runtime.close(): later calls raise ClosedError, calls in flight finish,
pending asynchronous resolutions complete before close returns."""

from __future__ import annotations

import threading
import time

import pytest

import zlink


def pair() -> tuple[zlink.Runtime, zlink.Runtime]:
    store = zlink.MemoryStore()
    owner = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store)
    sender = zlink.Runtime(zlink.NodeIdentity("main", 2), store=store)
    return owner, sender


def test_calls_after_close_raise_closed_error() -> None:
    owner, sender = pair()
    owner.activate("actor", "a")
    with sender as rt:
        assert rt is sender and not rt.closed
        assert isinstance(rt.resolve("actor", "a"), zlink.ReadyRoute)
    assert sender.closed
    for call in (
        lambda: sender.resolve("actor", "a"),
        lambda: sender.lookup_cached("actor", "a"),
        lambda: sender.resolve_many("actor", ["a"]),
        lambda: sender.lookup_cached_many("actor", ["a"]),
        lambda: sender.send("actor", "a", b"x"),
        lambda: sender.on_frame(1, b"\x00"),
        lambda: sender.stats(),
        lambda: sender.identity,
    ):
        with pytest.raises(zlink.ClosedError) as e:
            call()
        assert e.value.kind == "Closed"
        assert "closed" in str(e.value)
    sender.close()  # twice is allowed
    assert isinstance(owner.resolve("actor", "a"), zlink.ReadyRoute), "others keep working"


def test_with_block_closes_on_an_exception_and_lets_it_through() -> None:
    _, sender = pair()
    with pytest.raises(KeyError):
        with sender:
            raise KeyError("boom")
    assert sender.closed


def test_close_racing_calls_on_other_threads() -> None:
    owner, sender = pair()
    for i in range(32):
        owner.activate("spot", f"s{i}")
    start = threading.Barrier(5)
    unexpected: list[BaseException] = []
    done = [0] * 4

    def work(k: int) -> None:
        start.wait()
        n = 0
        try:
            while True:
                sender.resolve("spot", f"s{(k * 7 + n) % 64}")  # hits and misses
                n += 1
        except zlink.ClosedError:
            done[k] = n
        except BaseException as e:  # noqa: BLE001 - reported below
            unexpected.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    start.wait()
    time.sleep(0.2)
    sender.close()
    for t in threads:
        t.join(timeout=10)
        assert not t.is_alive(), "a call after close never hangs"
    assert not unexpected, unexpected[0]
    assert all(n > 0 for n in done), done


def test_close_waits_for_pending_async_resolutions() -> None:
    owner, sender = pair()
    owner.activate("actor", "a")
    called: list[object] = []
    lock = threading.Lock()

    def callback(value: object, error: object) -> None:
        with lock:
            called.append(value if error is None else error)

    started = 0
    for i in range(200):
        if sender._resolve_start("actor", f"x{i}", callback) is None:
            started += 1
    sender.close()
    with lock:
        assert len(called) == started, "every callback ran before close returned"
    assert all(isinstance(v, zlink.Missing) for v in called)


def test_close_from_a_completion_callback_is_refused() -> None:
    _, sender = pair()
    refused: list[BaseException] = []
    finished = threading.Event()

    def callback(value: object, error: object) -> None:
        try:
            sender.close()
        except zlink.ZlinkError as e:
            refused.append(e)
        finished.set()

    assert sender._resolve_start("actor", "cold", callback) is None
    assert finished.wait(10)
    assert refused and getattr(refused[0], "kind") == "WrongThread"
    assert not sender.closed
    sender.close()


def test_python_defaults_are_the_cores() -> None:
    # The signature's defaults are written out for help(); they must stay
    # the core's.
    assert zlink.RoutingConfig() == zlink.RoutingConfig._core_default()
