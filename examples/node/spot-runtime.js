'use strict';
// ZLinkSpotRuntime for Node: a small host that owns Actors (each records
// what it receives and answers requests), moves frames over TCP and asks
// zlink for every routing decision. Relocation is the runtime's handoff: the
// host only captures and restores an Actor's state. Frames are handled one
// at a time, in arrival order (a promise chain), like the JVM example's
// event loop.
const z = require('zlink');
const { Transport } = require('./transport.js');

class ZLinkSpotRuntime {
  constructor(rid, store) {
    this.rid = BigInt(rid);
    this.rt = new z.Runtime({ mesh: 'demo', rid }, { store });
    this.transport = new Transport(rid, (from, frame) => this.enqueue(() => this.arrive(from, frame)));
    this.actors = new Map();
    this.completions = new Map();
    this.events = [];
    this.delivered = 0;
    this.relayed = 0;
    this.chain = Promise.resolve();
    this.timer = setInterval(() => this.enqueue(() => this.tick()), 10);
  }

  /** Runs `work` after everything queued before it. */
  enqueue(work) {
    const next = this.chain.then(work).catch((e) => this.events.push(`error ${e.message}`));
    this.chain = next;
    return next;
  }

  async arrive(from, frame) { this.handle(await this.rt.onFrame(from, frame)); }

  async tick() {
    const next = this.rt.nextDeadline();
    if (next !== null && next <= this.rt.now()) (await this.rt.onTimeout()).forEach((d) => this.handle(d));
  }

  carry(o) {
    if (o.to.rid === this.rid) {
      this.enqueue(() => this.arrive(this.rid, o.bytes));
      return true;
    }
    return this.transport.send(o.to.rid, o.bytes);
  }

  handle(d) {
    switch (d.kind) {
      case 'Deliver': return this.receive(d.operation);
      case 'Relay':
        this.relayed++;
        this.carry(d.forward);
        if (d.notice) this.rt.noticeSettled(d.notice.token, this.carry(d.notice.outbound));
        return undefined;
      case 'Reject': return this.carry(d.outbound);
      case 'Send': return d.outbounds.forEach((o) => this.carry(o));
      case 'Completed': {
        const c = d.completion;
        const list = this.completions.get(c.correlation) ?? [];
        list.push(c.outcome);
        this.completions.set(c.correlation, list);
        return undefined;
      }
      case 'SessionDeliver': {
        const a = this.actors.get(d.actor);
        if (a && d.relayKind === 'Message') { a.push(d.payload.toString()); this.delivered++; }
        return undefined;
      }
      case 'Relocation': return this.relocation(d);
      default: this.events.push(d.kind); return undefined;
    }
  }

  receive(op) {
    const a = this.actors.get(op.id);
    if (a === undefined) { this.events.push(`no actor ${op.id}`); return; }
    const payload = op.payload.toString();
    a.push(payload);
    this.delivered++;
    if (op.isRequest) this.carry(this.rt.reply(op, `re:${payload}`));
  }

  relocation(r) {
    const e = r.event;
    this.events.push(`Relocation.${e.kind}`);
    const id = e.identity.id;
    if (e.kind === 'Restore') {
      const state = e.state.toString();
      this.actors.set(id, state === '' ? [] : state.split('\n'));
      this.rt.relocationRestored('actor', id).forEach((o) => this.carry(o));
    } else if (e.kind === 'HandedOff' || e.kind === 'Failed') {
      this.actors.delete(id);
    }
    r.deliver.forEach((dl) => this.receive(dl.operation));
    r.session.forEach((s) => this.handle(s));
    r.send.forEach((o) => this.carry(o));
  }

  async activate(id) {
    await this.rt.activate('actor', id);
    this.actors.set(id, []);
  }

  move(id, target) {
    const state = Buffer.from(this.actors.get(id).join('\n'));
    this.rt.beginRelocation('actor', id, target, 1, { state }).send.forEach((o) => this.carry(o));
  }

  async send(id, payload, request) {
    const r = request ? await this.rt.request('actor', id, payload) : await this.rt.send('actor', id, payload);
    if (r.kind === 'Submitted') return this.carry(r.outbound);
    this.events.push(`send ${payload}: ${r.kind}`);
    return false;
  }

  close() {
    clearInterval(this.timer);
    this.transport.close();
    this.rt.close();
  }
}

module.exports = { ZLinkSpotRuntime };
