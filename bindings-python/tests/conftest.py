"""Fixtures: a ManualClock world of runtimes over a MemoryStore or a real
redis-server that this suite starts itself on a free loopback port."""

from __future__ import annotations

import itertools
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import zlink

REPO = Path(__file__).resolve().parents[2]
WIRE = REPO / "testdata" / "wire"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A redis-server child process on 127.0.0.1; only ever this one is
    stopped or restarted."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.skip("redis-server is not installed (make deps installs it)")
        self.exe = exe
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def own_redis_server() -> Iterator[RedisServer]:
    """A server this test may stop and restart."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()


_prefixes = itertools.count()


@dataclass
class World:
    """Runtimes of one mesh sharing a store and a ManualClock."""

    clock: zlink.ManualClock
    store: zlink.MemoryStore | zlink.RedisStore
    backend: str
    config: zlink.RoutingConfig = field(default_factory=zlink.RoutingConfig)

    def node(self, rid: int, generation: int = 1, lease: int = 1,
             config: zlink.RoutingConfig | None = None) -> zlink.Runtime:
        return zlink.Runtime(
            zlink.NodeIdentity("main", rid, generation, lease),
            config=config or self.config,
            store=self.store,
            clock=self.clock,
        )


@pytest.fixture(params=["memory", "redis"])
def make_world(request: pytest.FixtureRequest) -> Callable[..., World]:
    backend = request.param

    def make(config: zlink.RoutingConfig | None = None) -> World:
        clock = zlink.ManualClock()
        store: zlink.MemoryStore | zlink.RedisStore
        if backend == "memory":
            store = zlink.MemoryStore(clock)
        else:
            server: RedisServer = request.getfixturevalue("redis_server")
            store = zlink.RedisStore(server.url, prefix=f"t{next(_prefixes)}")
        return World(clock, store, backend, config or zlink.RoutingConfig())

    return make


@pytest.fixture
def world(make_world: Callable[..., World]) -> World:
    return make_world()
