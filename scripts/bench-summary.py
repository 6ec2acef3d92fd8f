#!/usr/bin/env python3
"""The table `make bench` ends with: every figure the benches recorded (one
JSON line each in the records file, written by the benches of every
language through ZLINK_BENCH_OUT), its ratio to what it was measured
against in the same run, its target and whether it was met. Writes the same
as JSON to the summary path, with the date of the run and the git commit
it measured (scripts/perf-doc.py puts both in docs/performance.md). Never
fails on a timing.

usage: bench-summary.py RECORDS.jsonl SUMMARY.json
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys


def git(*args: str) -> str | None:
    """The output of a git command in this repo, or None without git."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip()


def main(records_path: str, summary_path: str) -> None:
    rows = []
    try:
        with open(records_path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        pass
    print("\n== bench summary (every figure measured in this run) ==")
    print(f"{'bench':8} {'figure':52} {'value':>12} {'ratio':>8}  {'vs':40} {'target':>9}  met")
    for r in rows:
        ratio = "" if r.get("ratio") is None else f"{r['ratio']:.2f}x"
        met = {True: "yes", False: "NO", None: ""}[r.get("met")]
        value = f"{r['value']:.1f} {r['unit']}"
        print(f"{r['bench']:8} {r['figure'][:52]:52} {value:>12} {ratio:>8}  {(r.get('vs') or '')[:40]:40} "
              f"{r.get('target') or '':>9}  {met}")
    held = [r for r in rows if r.get("met") is not None]
    print(f"targets met: {sum(1 for r in held if r['met'])} of {len(held)}")
    status = git("status", "--porcelain", "--untracked-files=no")
    run = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git("rev-parse", "--short=12", "HEAD"),
        # Uncommitted changes to tracked files: the run measured the work tree.
        "dirty": None if status is None else bool(status),
        "cpus": os.cpu_count(),
    }
    with open(summary_path, "w", encoding="utf-8") as f:
        json.dump({**run, "figures": rows}, f, indent=2)
    print(f"(also in {summary_path})")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
