"""A test host for runtimes of one mesh: it carries every frame and does
what a host does with each decision, including the relocation handoff
(spec §3.3): begin on the source, carry frames FIFO until quiet, call
``relocation_restored`` on a ``RelocationRestore``."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable

import zlink
from zlink import (
    Deliver,
    Held,
    Outbound,
    Reject,
    Relay,
    Relocation,
    RelocationCommitted,
    RelocationHandedOff,
    RelocationRestore,
    RelocationStarted,
    Runtime,
    Send,
    SessionDeliver,
)


# How soon a node's next deadline must be for the carrier to wait for it in
# real time: the 10 ms a runtime asks for while a store step is in flight.
SOON_NS = 10_000_000


def _due_within(rt: Runtime, ns: int) -> bool:
    due = rt.next_deadline()
    return due is not None and due <= rt.now() + ns


def decided(rt: Runtime) -> list[object]:
    """What the next `on_timeout` that decides something returns: at once
    on a store that answers at once, or once a store step in flight on the
    store's I/O (Redis) has answered, as a host's timer loop would see it
    (it waits in real time while `next_deadline` asks every 10 ms)."""
    give_up = time.monotonic() + 10
    while True:
        out = rt.on_timeout()
        if out or time.monotonic() > give_up or not _due_within(rt, SOON_NS):
            return out
        time.sleep(0.001)


class Carrier:
    """Carries frames between runtimes on one FIFO (so every connection is
    ordered) and records what each node was asked to do: `delivered` (the
    Delivers, from `on_frame` or from a Relocation's `deliver`, in order),
    `session_delivered`, `events` (relocation events and every other
    decision), `held` (how many operations were held) and `unrouted`
    (frames for a node this carrier does not host)."""

    def __init__(self, nodes: Iterable[Runtime], *, restore: bool = True) -> None:
        self.nodes = {rt.identity.rid: rt for rt in nodes}
        self.restore = restore
        self.queue: deque[tuple[int, Outbound]] = deque()
        self.delivered: list[tuple[int, Deliver]] = []
        self.session_delivered: list[tuple[int, SessionDeliver]] = []
        self.events: list[tuple[int, object]] = []
        self.held = 0
        self.unrouted: list[tuple[int, Outbound]] = []

    def __getitem__(self, rid: int) -> Runtime:
        return self.nodes[rid]

    def post(self, sender: int, frames: Iterable[Outbound]) -> None:
        for f in frames:
            assert f.sender.rid == sender, f"a frame of node {sender} names {f.sender} as its sender"
            self.queue.append((sender, f))

    def run(self) -> None:
        """Carries every queued frame and every answer until none is left;
        each arrives on the connection to its sender. Then waits (in real
        time) while a node's work is due within 10 ms: a relocation's store
        step in flight on the store's I/O (the owner CAS on Redis) answers
        a few milliseconds later, and `next_deadline` asks every 10 ms
        meanwhile."""
        give_up = time.monotonic() + 10
        while True:
            while self.queue:
                sent_by, out = self.queue.popleft()
                to = out.to.rid
                if to not in self.nodes:
                    self.unrouted.append((sent_by, out))
                    continue
                rt = self.nodes[to]
                self.act(to, rt.on_frame(sent_by, out.bytes))
                # A host re-reads next_deadline after every frame: work a
                # frame made due now (the owner CAS after a cutover) starts
                # at once.
                self._fire_due(to, rt)
            soon = [rt for rt in self.nodes.values() if _due_within(rt, SOON_NS)]
            if not soon or time.monotonic() > give_up:
                return
            time.sleep(0.001)
            for rid, rt in self.nodes.items():
                self._fire_due(rid, rt)

    def _fire_due(self, rid: int, rt: Runtime) -> None:
        if _due_within(rt, 0):
            for decision in rt.on_timeout():
                self.act(rid, decision)

    def timeouts(self) -> None:
        """Every node's `on_timeout`, then carries what it sent."""
        for rid, rt in self.nodes.items():
            for decision in rt.on_timeout():
                self.act(rid, decision)
        self.run()

    def act(self, at: int, decision: object) -> None:
        match decision:
            case Deliver():
                self.delivered.append((at, decision))
            case Relocation(event, deliver, send, session):
                self.delivered.extend((at, d) for d in deliver)
                self.session_delivered.extend((at, d) for d in session)
                self.post(at, send)
                self.events.append((at, event))
                if isinstance(event, RelocationRestore) and self.restore:
                    ident = event.identity
                    self.post(at, self.nodes[at].relocation_restored(ident.kind, ident.id))
            case Send(outbounds):
                self.post(at, outbounds)
            case Relay(forward, notice):
                self.post(at, [forward])
                if notice is not None:
                    self.post(at, [notice.outbound])
                    self.nodes[at].notice_settled(notice.token, True)
            case Reject(outbound):
                self.post(at, [outbound])
            case Held():
                self.held += 1
            case SessionDeliver():
                self.session_delivered.append((at, decision))
            case _:
                self.events.append((at, decision))

    def begin(self, kind: zlink.Kind, id: str, source: int, target: int, *,
              saved: Iterable[zlink.Operation] = (), state: bytes = b"") -> RelocationStarted:
        """Starts the move on `source` and queues its frames (not carried)."""
        started = self.nodes[source].begin_relocation(
            kind, id, target, self.nodes[target].identity.generation, saved=saved, state=state)
        self.post(source, started.send)
        return started

    def relocation_events(self, at: int) -> list[object]:
        return [e for rid, e in self.events if rid == at and type(e).__name__.startswith("Relocation")]

    def payloads(self, at: int) -> list[bytes]:
        return [d.operation.payload for rid, d in self.delivered if rid == at]


def relocate(source: Runtime, target: Runtime, kind: zlink.Kind, id: str, *,
             saved: Iterable[zlink.Operation] = (), state: bytes = b"") -> Carrier:
    """Moves `id` from `source` to `target` over the full protocol and checks
    it committed: the target owns it, the source handed it off."""
    carrier = Carrier([source, target])
    started = carrier.begin(kind, id, source.identity.rid, target.identity.rid,
                            saved=saved, state=state)
    carrier.run()
    committed = [e for e in carrier.relocation_events(target.identity.rid)
                 if isinstance(e, RelocationCommitted)]
    handed_off = [e for e in carrier.relocation_events(source.identity.rid)
                  if isinstance(e, RelocationHandedOff)]
    assert [e.identity for e in committed] == [started.identity], carrier.events
    assert [e.identity for e in handed_off] == [started.identity], carrier.events
    assert source.owned(kind, id) is None and target.owned(kind, id) is not None
    return carrier
