"""The Python host of the interop run (docs/interop.md).

A small Spot runtime over the `zlink` wheel: it owns Actors (each records
the payloads it receives and answers requests with "re:" + payload), moves
frames over TCP (the framing of docs/interop.md) and asks zlink for every
routing decision. One thread runs everything (frames, commands, timers) from
one queue, so Actors need no locks; reader threads only queue what arrives.

    python host.py NAME RID REDIS_URL    (commands on stdin, answers on stdout)
"""

import json
import queue
import socket
import struct
import sys
import threading

import zlink


class Transport:
    """Length-prefixed frames over TCP; arrivals go to `inbox` as ("frame", from, bytes)."""

    def __init__(self, rid, inbox):
        self.rid = rid
        self.inbox = inbox
        self.ports = {}
        self.conns = {}
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn):
        with conn, conn.makefile("rb") as f:
            hello = f.read(8)
            if len(hello) < 8:
                return
            sender = struct.unpack(">Q", hello)[0]
            while (head := f.read(4)) and len(head) == 4:
                frame = f.read(struct.unpack(">I", head)[0])
                self.inbox.put(("frame", sender, frame))

    def send(self, to, frame):
        """Sends one frame to node `to`; False if it cannot be reached."""
        try:
            conn = self.conns.get(to)
            if conn is None:
                conn = socket.create_connection(("127.0.0.1", self.ports[to]))
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                conn.sendall(struct.pack(">Q", self.rid))
                self.conns[to] = conn
            conn.sendall(struct.pack(">I", len(frame)) + frame)
            return True
        except (OSError, KeyError):
            self.conns.pop(to, None)
            return False


class Host:
    def __init__(self, name, rid, url):
        self.name = name
        self.rid = rid
        self.rt = zlink.Runtime(zlink.NodeIdentity("interop", rid=rid), store=zlink.RedisStore(url))
        self.inbox = queue.Queue()
        self.transport = Transport(rid, self.inbox)
        self.actors = {}  # id -> list of payloads received (the state that moves)
        self.running = set()  # actors that run here now (activated or committed, not moving away)
        self.seq = 0
        self.sent = {"m": [], "q": [], "s": []}
        self.asked = {}  # correlation -> payload of the request
        self.outcomes = {}  # correlation -> outcomes
        self.delivered = self.relayed = self.notices = self.stray = self.held = 0
        self.replied = {}  # asking host -> requests answered here
        self.events, self.errors = [], []

    # -- frames and decisions ------------------------------------------------

    def carry(self, out):
        if out.to.rid == self.rid:
            self.inbox.put(("frame", self.rid, out.bytes))
            return True
        return self.transport.send(out.to.rid, out.bytes)

    def handle(self, d):
        match d:
            case zlink.Deliver(op, _):
                self.receive(op)
            case zlink.Relay(forward, notice):
                self.relayed += 1
                self.carry(forward)
                if notice is not None:
                    self.rt.notice_settled(notice.token, self.carry(notice.outbound))
            case zlink.Reject(out):
                self.carry(out)
            case zlink.Send(outs):
                for o in outs:
                    self.carry(o)
            case zlink.Completed(c):
                self.outcomes.setdefault(c.correlation, []).append(c.outcome)
            case zlink.SessionDeliver() if d.relay_kind == "Message":
                self.record(d.actor, d.payload.decode())
            case zlink.RouteRefreshed():
                self.notices += 1
            case zlink.Relocation():
                self.relocation(d)
            case zlink.Held():
                self.held += 1
            case zlink.Bound() | zlink.Sealed():
                pass
            case _:
                self.errors.append(repr(d))

    def record(self, actor, payload):
        if actor not in self.running:
            self.stray += 1
            self.errors.append(f"delivered {payload} for {actor}, which does not run here")
            return False
        self.actors[actor].append(payload)
        self.delivered += 1
        return True

    def receive(self, op):
        payload = op.payload.decode()
        if self.record(op.id, payload) and op.is_request:
            self.carry(self.rt.reply(op, ("re:" + payload).encode()))
            asker = payload.split("|")[0]
            self.replied[asker] = self.replied.get(asker, 0) + 1

    def relocation(self, r):
        e = r.event
        self.events.append(type(e).__name__.removeprefix("Relocation"))
        actor = e.identity.id
        match e:
            case zlink.RelocationRestore(state=state):
                self.actors[actor] = state.decode().split("\n") if state else []
                for o in self.rt.relocation_restored("actor", actor):
                    self.carry(o)
            case zlink.RelocationCommitted() | zlink.RelocationAborted():
                if actor in self.actors:
                    self.running.add(actor)
            case zlink.RelocationHandedOff() | zlink.RelocationFailed():
                self.running.discard(actor)
                self.actors.pop(actor, None)
        for dl in r.deliver:
            self.receive(dl.operation)
        for s in r.session:
            self.handle(s)
        for o in r.send:
            self.carry(o)
        if isinstance(e, zlink.RelocationCommitDue):
            self.tick()
        if isinstance(e, (zlink.RelocationFailed, zlink.RelocationAborted, zlink.RelocationAborting)):
            self.errors.append(repr(e))

    def tick(self):
        deadline = self.rt.next_deadline()
        if deadline is not None and deadline <= self.rt.now():
            for d in self.rt.on_timeout():
                self.handle(d)

    # -- commands ------------------------------------------------------------

    def command(self, words):
        match words:
            case ["peers", *peers]:
                for p in peers:
                    rid, port = p.split("=")
                    self.transport.ports[int(rid)] = int(port)
            case ["activate", actor]:
                self.rt.activate("actor", actor)
                self.actors[actor] = []
                self.running.add(actor)
            case ["send", actor, count, *session]:
                self.send(actor, int(count))
                if session:
                    raise ValueError("sessions are the Node host's")
            case ["move", actor, target]:
                state = "\n".join(self.actors[actor]).encode()
                self.running.discard(actor)
                for o in self.rt.begin_relocation("actor", actor, int(target), 1, state=state).send:
                    self.carry(o)
            case ["status", actor]:
                return {"owns": actor in self.running}
            case ["tally", actor]:
                return self.tally(actor)
            case _:
                raise ValueError(f"unknown command {' '.join(words)}")
        return {}

    def send(self, actor, count):
        for _ in range(count):
            seq, self.seq = self.seq, self.seq + 1
            kind = "q" if seq % 3 == 2 else "m"
            payload = f"{self.name}|{kind}|{seq}"
            r = (self.rt.request if kind == "q" else self.rt.send)("actor", actor, payload.encode())
            if isinstance(r, zlink.Submitted) and self.carry(r.outbound):
                self.sent[kind].append(seq)
                if kind == "q":
                    self.asked[r.correlation] = payload
            else:
                self.errors.append(f"send {payload}: {r!r}")

    def tally(self, actor):
        once = bad = 0
        for corr, payload in self.asked.items():
            outs = self.outcomes.get(corr, [])
            if len(outs) == 1 and isinstance(outs[0], zlink.Reply) and outs[0].payload == ("re:" + payload).encode():
                once += 1
            elif outs:
                bad += 1
        return {
            "sent": self.sent,
            "requests": len(self.asked),
            "ended_once": once,
            "bad": bad,
            "pending": sum(1 for c in self.asked if c not in self.outcomes),
            "delivered": self.delivered,
            "relayed": self.relayed,
            "notices": self.notices,
            "stray": self.stray,
            "held": self.held,
            "replied": self.replied,
            "actor": self.actors[actor] if actor in self.running else None,
            "events": self.events,
            "errors": self.errors,
        }

    # -- the loop ------------------------------------------------------------

    def run(self):
        def stdin():
            for line in sys.stdin:
                self.inbox.put(("command", line.split()))
            self.inbox.put(("command", ["quit"]))

        threading.Thread(target=stdin, daemon=True).start()
        print(json.dumps({"ok": True, "port": self.transport.port}), flush=True)
        while True:
            deadline = self.rt.next_deadline()
            wait = 0.01 if deadline is None else min(0.01, max(0, (deadline - self.rt.now()) / 1e9))
            try:
                item = self.inbox.get(timeout=wait)
            except queue.Empty:
                item = None
            if item is not None and item[0] == "frame":
                try:
                    self.handle(self.rt.on_frame(item[1], item[2]))
                except zlink.ZlinkError as e:
                    self.errors.append(f"frame from {item[1]}: {e!r}")
            elif item is not None:
                if item[1] == ["quit"]:
                    print(json.dumps({"ok": True}), flush=True)
                    return
                try:
                    answer = {"ok": True, **self.command(item[1])}
                except Exception as e:  # the coordinator reports it and fails the run
                    answer = {"ok": False, "error": repr(e)}
                print(json.dumps(answer), flush=True)
            self.tick()


def main():
    name, rid, url = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    host = Host(name, rid, url)
    try:
        host.run()
    finally:
        host.rt.close()


if __name__ == "__main__":
    main()
