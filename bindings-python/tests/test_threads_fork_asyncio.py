"""Many Python threads at once, fork(), and resolve_async on asyncio."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

import zlink


def pair() -> tuple[zlink.Runtime, zlink.Runtime]:
    store = zlink.MemoryStore()
    owner = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store)
    sender = zlink.Runtime(zlink.NodeIdentity("main", 2), store=store)
    return owner, sender


def test_many_threads_resolve_at_once() -> None:
    owner, sender = pair()
    ids = [f"s{i}" for i in range(64)]
    for i in ids[:32]:
        owner.activate("spot", i)
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work(seed: int) -> None:
        try:
            start.wait()
            for n in range(2_000):
                i = ids[(seed * 7 + n) % len(ids)]
                r = sender.resolve("spot", i)
                want = zlink.ReadyRoute if int(i[1:]) < 32 else zlink.Missing
                assert isinstance(r, want), r
                sender.stats() if n % 500 == 0 else None
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    s = sender.stats()
    assert s["resolutions"]["ready_route"] + s["resolutions"]["missing"] == 16_000


def _in_child(body: "object") -> int:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = int(body())  # type: ignore[operator]
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_child_of_fork_creates_its_own_runtime() -> None:
    owner, sender = pair()
    owner.activate("spot", "s")
    assert isinstance(sender.resolve("spot", "s"), zlink.ReadyRoute)  # threads running

    def child() -> int:
        store = zlink.MemoryStore()
        rt = zlink.Runtime(zlink.NodeIdentity("main", 9), store=store)
        rt.activate("spot", "c")
        ok = isinstance(rt.resolve("spot", "c"), zlink.ReadyRoute)
        ok = ok and isinstance(asyncio.run(rt.resolve_async("spot", "missing")), zlink.Missing)
        try:
            sender.resolve("spot", "s")
            return 3
        except zlink.ForkedRuntimeError:
            pass
        return 0 if ok else 2

    assert _in_child(child) == 0
    # The parent is untouched.
    assert isinstance(sender.resolve("spot", "s"), zlink.ReadyRoute)
    assert isinstance(asyncio.run(sender.resolve_async("spot", "nope")), zlink.Missing)


def test_resolve_async_hit_and_miss_on_the_running_loop() -> None:
    owner, sender = pair()
    owner.activate("actor", "a")

    async def main() -> list[zlink.Resolution]:
        first = await sender.resolve_async("actor", "a")  # miss: store read
        second = await sender.resolve_async("actor", "a")  # hit
        many = await asyncio.gather(*(sender.resolve_async("actor", f"x{i}") for i in range(50)))
        return [first, second, *many]

    results = asyncio.run(main())
    assert isinstance(results[0], zlink.ReadyRoute) and results[0] == results[1]
    assert all(isinstance(r, zlink.Missing) for r in results[2:])


def test_resolve_async_needs_a_running_loop() -> None:
    _, sender = pair()
    coro = sender.resolve_async("spot", "x")
    with pytest.raises(RuntimeError):
        coro.send(None)
    coro.close()


def test_resolve_async_bad_input_raises_in_the_awaiting_task() -> None:
    _, sender = pair()

    async def main() -> None:
        await sender.resolve_async("spot", "")

    with pytest.raises(zlink.InputError):
        asyncio.run(main())
