"""Cache-hit resolve: zlink (Rust via pyo3) against an equivalent pure-Python
route cache (dict + the same kind/ID checks and expiry checks), in the same
run, per id and in the batch form. Prints ratios; never fails on a timing."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Final

import zlink

N: Final = 10_000
ROUNDS: Final = 7
MAX_ID_BYTES: Final = 1024


@dataclass(frozen=True, slots=True)
class PyRoute:
    mesh: str
    node: int
    object_generation: int
    authority_owner_generation: int
    owner_lease_generation: int
    node_generation: int
    store_version: int
    admission_deadline: float


@dataclass(slots=True)
class PyEntry:
    route: PyRoute
    expires_at: float


class PyRouteCache:
    """What a Python host would write: a dict keyed by (kind, id), entries
    that expire at the earlier of max age and the admission deadline."""

    def __init__(self, max_age: float) -> None:
        self.max_age = max_age
        self.entries: dict[tuple[str, str], PyEntry] = {}
        self.hits = 0

    def insert(self, kind: str, id: str, route: PyRoute) -> None:
        expires = min(time.monotonic() + self.max_age, route.admission_deadline)
        self.entries[(kind, id)] = PyEntry(route, expires)

    def lookup(self, kind: str, id: str) -> PyRoute | None:
        if kind != "spot" and kind != "actor":
            raise ValueError(kind)
        if not id or len(id) > MAX_ID_BYTES:
            raise ValueError(id)
        entry = self.entries.get((kind, id))
        if entry is None:
            return None
        now = time.monotonic()
        if now >= entry.expires_at or now >= entry.route.admission_deadline:
            del self.entries[(kind, id)]
            return None
        self.hits += 1
        return entry.route


def best(f: "object", rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    store = zlink.MemoryStore()
    owner = zlink.Runtime(zlink.NodeIdentity("main", 1), store=store)
    rt = zlink.Runtime(zlink.NodeIdentity("main", 2), store=store)
    ids = [f"user-{i:06d}" for i in range(N)]
    for i in ids:
        owner.activate("actor", i)
    cache = PyRouteCache(15.0)
    for i in ids:
        r = rt.resolve("actor", i)
        assert isinstance(r, zlink.ReadyRoute)
        f = r.fence
        cache.insert("actor", i, PyRoute(r.mesh, r.node, f.object_generation,
                                         f.authority_owner_generation, f.owner_lease_generation,
                                         f.node_generation, f.store_version,
                                         time.monotonic() + 30.0))

    resolve = rt.resolve
    lookup = cache.lookup

    def native_loop() -> None:
        for i in ids:
            resolve("actor", i)

    def python_loop() -> None:
        for i in ids:
            lookup("actor", i)

    def native_batch() -> None:
        rt.resolve_many("actor", ids)

    def python_batch() -> None:
        [lookup("actor", i) for i in ids]

    def empty_loop() -> None:
        for i in ids:
            pass

    reads_before = rt.stats()["store_reads"]
    results = {
        "zlink resolve (per call)": best(native_loop),
        "python dict cache (per call)": best(python_loop),
        "zlink resolve_many (batch)": best(native_batch),
        "python dict cache (list comp)": best(python_batch),
        "empty loop": best(empty_loop),
    }
    assert rt.stats()["store_reads"] == reads_before, "every lookup was a cache hit"
    print(f"cache-hit resolve, {N} ids, best of {ROUNDS} rounds (ns per id):")
    for name, secs in results.items():
        print(f"  {name:32s} {secs / N * 1e9:8.1f}")
    per_call = results["zlink resolve (per call)"] / results["python dict cache (per call)"]
    batch = results["zlink resolve_many (batch)"] / results["python dict cache (list comp)"]
    print(f"ratio zlink/python per call: {per_call:.2f}x (target <= 1.0x)")
    print(f"ratio zlink/python batch:    {batch:.2f}x (target <= 1.0x)")
    for figure, key, ratio in [
        ("cache-hit resolve, single call", "zlink resolve (per call)", per_call),
        ("cache-hit resolve_many, per id", "zlink resolve_many (batch)", batch),
    ]:
        record(figure, results[key] / N * 1e9, ratio, "python dict cache")


def record(figure: str, ns: float, ratio: float, vs: str) -> None:
    """Appends one figure to the summary `make bench` ends with (ZLINK_BENCH_OUT)."""
    out = os.environ.get("ZLINK_BENCH_OUT")
    if not out:
        return
    line = {"bench": "python", "figure": figure, "value": ns, "unit": "ns", "ratio": ratio,
            "vs": vs, "target": "<= 1.0x", "met": ratio <= 1.0}
    with open(out, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
