#!/usr/bin/env python3
"""The coordinator of the five-language interop run (docs/interop.md).

Starts one host process per language, tells them over their stdin what to
do (one text command a line, one JSON answer a line on their stdout) and
tallies what the moving Actor received against what every host says it
sent. Exits non-zero if anything was lost, duplicated, delivered where the
Actor was not, or if a request did not end exactly once, or if a host
failed. Usage: coordinator.py REDIS_URL LANG=COMMAND... (in rid order).
"""

import json
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time

ACTOR = "interop-actor"
SESSION = 7
# INTEROP_ROUNDS and INTEROP_PER_ROUND scale the traffic (a heavier run).
ROUNDS = int(os.environ.get("INTEROP_ROUNDS", 60))
PER_ROUND = int(os.environ.get("INTEROP_PER_ROUND", 4))  # operations each host sends per round (every third a request)
SESSION_PER_ROUND = max(1, PER_ROUND // 2)  # session relays the Node host sends per round
MOVE_ROUNDS = tuple(ROUNDS * k // 6 for k in (1, 2, 3, 4))  # Java -> Python -> Node -> C -> Rust
ROUND_PAUSE = float(os.environ.get("INTEROP_PAUSE_MS", 20)) / 1000  # between rounds, except the BURST rounds after a move
BURST = 3
COMMAND_TIMEOUT = 15.0
SETTLE_TIMEOUT = 20.0


class HostFailed(Exception):
    pass


class Host:
    """One host process: a command line in, one JSON line out."""

    def __init__(self, name, rid, argv, url):
        self.name = name
        self.rid = rid
        self.proc = subprocess.Popen(
            argv + [name, str(rid), url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # the host's own diagnostics go to our stderr
            text=True,
            bufsize=1,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.port = None

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def answer(self, what, timeout=COMMAND_TIMEOUT):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise HostFailed(f"{self.name}: no answer to {what!r} within {timeout:.0f} s") from None
        if line is None:
            raise HostFailed(f"{self.name}: exited ({self.proc.poll()}) before answering {what!r}")
        try:
            value = json.loads(line)
        except ValueError:
            raise HostFailed(f"{self.name}: not JSON in answer to {what!r}: {line!r}") from None
        if not value.get("ok", False):
            raise HostFailed(f"{self.name}: {what!r} failed: {value.get('error')}")
        return value

    def tell(self, command):
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except OSError as e:
            raise HostFailed(f"{self.name}: cannot write {command!r}: {e}") from None

    def ask(self, command):
        self.tell(command)
        return self.answer(command)


def ask_all(hosts, commands):
    """Sends each host its command first, then reads every answer."""
    for h, c in zip(hosts, commands):
        if c is not None:
            h.tell(c)
    return [h.answer(c) if c is not None else None for h, c in zip(hosts, commands)]


def main():
    # timeout(1) sends SIGTERM: end through `finally`, which stops the hosts.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    url = sys.argv[1]
    specs = [a.split("=", 1) for a in sys.argv[2:]]
    started = time.monotonic()
    hosts = []
    try:
        for rid, (name, command) in enumerate(specs, start=1):
            hosts.append(Host(name, rid, shlex.split(command), url))
        for h in hosts:
            h.port = h.answer("start", timeout=60)["port"]
        print(f"hosts up in {time.monotonic() - started:.1f} s: "
              + ", ".join(f"{h.name} (rid {h.rid}, port {h.port})" for h in hosts), flush=True)
        peers = " ".join(f"{h.rid}={h.port}" for h in hosts)
        ask_all(hosts, [f"peers {peers}"] * len(hosts))
        by_name = {h.name: h for h in hosts}
        chain = [by_name[n] for n in ("java", "python", "node", "c", "rust") if n in by_name]
        node = by_name.get("node")

        chain[0].ask(f"activate {ACTOR}")
        if node is not None:
            node.ask(f"bind {ACTOR} {SESSION}")
        owner, moving = 0, None  # index in chain of the owner; the target of the move in flight
        traffic_started = time.monotonic()
        moves = []
        last_move = -BURST
        for r in range(ROUNDS):
            if moving is not None and chain[moving].ask(f"status {ACTOR}")["owns"]:
                moves[-1] = (*moves[-1][:2], time.monotonic() - moves[-1][2])
                owner, moving = moving, None
            if r in MOVE_ROUNDS[: len(chain) - 1]:
                deadline = time.monotonic() + COMMAND_TIMEOUT
                while moving is not None:  # the previous move must have committed first
                    if chain[moving].ask(f"status {ACTOR}")["owns"]:
                        moves[-1] = (*moves[-1][:2], time.monotonic() - moves[-1][2])
                        owner, moving = moving, None
                    elif time.monotonic() > deadline:
                        raise HostFailed(f"the move to {chain[moving].name} did not commit")
                    else:
                        time.sleep(0.01)
                moving, last_move = owner + 1, r
                # The move starts, and this round's traffic goes out at once, from every host.
                chain[owner].tell(f"move {ACTOR} {chain[moving].rid}")
                moves.append((chain[owner].name, chain[moving].name, time.monotonic()))
            commands = [f"send {ACTOR} {PER_ROUND}" for _ in hosts]
            if node is not None:
                commands[hosts.index(node)] += f" {SESSION} {SESSION_PER_ROUND}"
            ask_all(hosts, commands)
            if last_move == r:
                chain[owner].answer("send")  # its answers: the move's (read by ask_all), then the sends'
            if r - last_move >= BURST:
                time.sleep(ROUND_PAUSE)
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while moving is not None:
            if chain[moving].ask(f"status {ACTOR}")["owns"]:
                moves[-1] = (*moves[-1][:2], time.monotonic() - moves[-1][2])
                owner, moving = moving, None
            elif time.monotonic() > deadline:
                raise HostFailed(f"the move to {chain[moving].name} did not commit")
            else:
                time.sleep(0.01)
        traffic_time = time.monotonic() - traffic_started

        # Settle: every request ended, every operation sent arrived (or the timeout).
        while True:
            tallies = ask_all(hosts, [f"tally {ACTOR}"] * len(hosts))
            seen = next((t["actor"] for t in tallies if t.get("actor") is not None), None)
            sent_total = sum(len(v) for t in tallies for v in t["sent"].values())
            pending = sum(t["pending"] for t in tallies)
            if (seen is not None and len(seen) >= sent_total and pending == 0) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        return report(hosts, chain, tallies, seen, moves, traffic_time, started)
    except HostFailed as e:
        print(f"interop: FAILED: {e}", flush=True)
        return 1
    finally:
        for h in hosts:
            try:
                h.tell("quit")
            except HostFailed:
                pass
        stop = time.monotonic() + 5
        for h in hosts:
            try:
                h.proc.wait(timeout=max(0.1, stop - time.monotonic()))
            except subprocess.TimeoutExpired:
                h.proc.kill()
                h.proc.wait()


def report(hosts, chain, tallies, seen, moves, traffic_time, started):
    ok = True
    owners = [t for t in tallies if t.get("actor") is not None]
    if len(owners) != 1 or tallies[hosts.index(chain[-1])].get("actor") is None:
        print(f"interop: the Actor should run on {chain[-1].name} only; it runs on "
              f"{[h.name for h, t in zip(hosts, tallies) if t.get('actor') is not None]}")
        ok = False
    seen = seen or []
    counts = {}
    for p in seen:
        counts[p] = counts.get(p, 0) + 1
    print()
    print("moves (start -> committed): " + ", ".join(
        f"{a} -> {b} {t * 1000:.0f} ms" for a, b, t in moves))
    print()
    header = (f"{'sender':<15}{'sent':>6}{'delivered':>11}{'lost':>6}{'duplicated':>12}"
              f"{'unexpected':>12}{'requests':>10}{'ended once':>12}")
    print(header)
    print("-" * len(header))
    rows = []
    for h, t in zip(hosts, tallies):
        rows.append((h.name, h.name, ("m", "q"), t, True))
        if t["sent"].get("s"):
            rows.append((f"{h.name} session", h.name, ("s",), t, False))
    totals = [0] * 7
    for label, lang, kinds, t, with_requests in rows:
        expected = {f"{lang}|{k}|{s}" for k in kinds for s in t["sent"].get(k, [])}
        mine = {p: n for p, n in counts.items() if p.split("|")[0] == lang and p.split("|")[1] in kinds}
        delivered = sum(mine.values())
        lost = sum(1 for p in expected if p not in mine)
        duplicated = sum(n - 1 for n in mine.values() if n > 1)
        unexpected = sum(n for p, n in mine.items() if p not in expected)
        requests = t["requests"] if with_requests else 0
        ended = t["ended_once"] if with_requests else 0
        cells = [len(expected), delivered, lost, duplicated, unexpected, requests, ended]
        totals = [a + b for a, b in zip(totals, cells)]
        req_cells = f"{requests:>10}{ended:>12}" if with_requests else f"{'-':>10}{'-':>12}"
        print(f"{label:<15}{cells[0]:>6}{delivered:>11}{lost:>6}{duplicated:>12}{unexpected:>12}{req_cells}")
        if lost or duplicated or unexpected or ended != requests:
            ok = False
        if not with_requests:
            order = [int(p.split("|")[2]) for p in seen if p.startswith(f"{lang}|s|")]
            if order != sorted(order):
                print(f"interop: {label} relays arrived out of order")
                ok = False
    print("-" * len(header))
    print(f"{'all':<15}" + "".join(f"{v:>{w}}" for v, w in zip(totals, (6, 11, 6, 12, 12, 10, 12))))
    print()
    header2 = (f"{'host':<8}{'rid':>4}{'ran here':>10}{'replied':>9}{'held':>6}{'relayed':>9}"
               f"{'notices':>9}{'stray':>7}{'bad ends':>10}  relocation events")
    print(header2)
    print("-" * len(header2))
    for h, t in zip(hosts, tallies):
        events = ",".join(t["events"]) or "-"
        print(f"{h.name:<8}{h.rid:>4}{t['delivered']:>10}{sum(t['replied'].values()):>9}{t['held']:>6}{t['relayed']:>9}"
              f"{t['notices']:>9}{t['stray']:>7}{t['bad'] + t['pending']:>10}  {events}")
        if t["stray"] or t["bad"] or t["pending"] or t["errors"]:
            ok = False
        for e in t["errors"]:
            print(f"interop: {h.name}: {e}")
    print()
    print("requests answered (rows: the host that owned the Actor and replied; columns: the asking host)")
    print(f"{'':<8}" + "".join(f"{h.name:>8}" for h in hosts))
    for h, t in zip(hosts, tallies):
        print(f"{h.name:<8}" + "".join(f"{t['replied'].get(a.name, 0):>8}" for a in hosts))
        if h in chain and any(t["replied"].get(a.name, 0) == 0 for a in hosts):
            print(f"interop: {h.name} owned the Actor but answered no request of some host: the run did not cover it")
            ok = False
    print()
    for h, t in zip(hosts, tallies):
        if t.get("session_route") is not None:
            where = next((x.name for x in hosts if x.rid == t["session_route"]), "nowhere")
            print(f"session {SESSION} on {h.name}: its stored route names {where} (rid {t['session_route']}), "
                  f"where the Actor runs: {'yes' if where == chain[-1].name else 'NO'}")
            ok = ok and where == chain[-1].name
    print()
    print(f"traffic {traffic_time:.1f} s; wall time {time.monotonic() - started:.1f} s; "
          + ("PASSED: 0 lost, 0 duplicated, every request ended once" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
