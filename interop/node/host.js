'use strict';
// The Node host of the interop run (docs/interop.md): examples/node's
// ZLinkSpotRuntime, adapted. It owns Actors (each records the payloads it
// receives and answers requests with "re:" + payload), moves frames over
// TCP and asks zlink for every routing decision; it also owns the run's
// Session, bound to the moving Actor. Frames, commands and timers run one at
// a time, in order (a promise chain).
//
//   node host.js NAME RID REDIS_URL    (commands on stdin, answers on stdout)
const readline = require('node:readline');
const z = require('zlink');
// The framing of docs/interop.md, as the Node example carries it.
const { Transport } = require('../../examples/node/transport.js');

class Host {
  constructor(name, rid, store) {
    this.name = name;
    this.rid = BigInt(rid);
    this.rt = new z.Runtime({ mesh: 'interop', rid }, { store });
    this.transport = new Transport(rid, (from, frame) => this.enqueue(() => this.arrive(from, frame)));
    this.actors = new Map(); // id -> payloads received (the state that moves)
    this.running = new Set(); // actors that run here now
    this.seq = 0;
    this.sessionSeq = 0;
    this.sent = { m: [], q: [], s: [] };
    this.sessions = new Map(); // actor -> the Session bound to it
    this.asked = new Map(); // correlation -> request payload
    this.outcomes = new Map(); // correlation -> outcomes
    this.delivered = 0;
    this.relayed = 0;
    this.notices = 0;
    this.stray = 0;
    this.held = 0;
    this.replied = {}; // asking host -> requests answered here
    this.events = [];
    this.errors = [];
    this.chain = Promise.resolve();
    this.timer = setInterval(() => this.enqueue(() => this.tick()), 10);
  }

  /** Runs `work` after everything queued before it; its result. */
  enqueue(work) {
    const next = this.chain.then(work);
    this.chain = next.catch((e) => this.errors.push(`${e.code ?? ''} ${e.message}`));
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
        const list = this.outcomes.get(c.correlation) ?? [];
        list.push(c.outcome);
        this.outcomes.set(c.correlation, list);
        return undefined;
      }
      case 'SessionDeliver':
        if (d.relayKind === 'Message') this.record(d.actor, d.payload.toString());
        return undefined;
      case 'RouteRefreshed': this.notices++; return undefined;
      case 'Relocation': return this.relocation(d);
      case 'Held': this.held++; return undefined;
      case 'Bound': case 'Sealed': return undefined;
      default: this.errors.push(JSON.stringify(d, (_, v) => (typeof v === 'bigint' ? v.toString() : v))); return undefined;
    }
  }

  record(actor, payload) {
    if (!this.running.has(actor)) {
      this.stray++;
      this.errors.push(`delivered ${payload} for ${actor}, which does not run here`);
      return false;
    }
    this.actors.get(actor).push(payload);
    this.delivered++;
    return true;
  }

  receive(op) {
    const payload = op.payload.toString();
    if (this.record(op.id, payload) && op.isRequest) {
      this.carry(this.rt.reply(op, `re:${payload}`));
      const asker = payload.split('|')[0];
      this.replied[asker] = (this.replied[asker] ?? 0) + 1;
    }
  }

  relocation(r) {
    const e = r.event;
    this.events.push(e.kind);
    const id = e.identity.id;
    if (e.kind === 'Restore') {
      const state = e.state.toString();
      this.actors.set(id, state === '' ? [] : state.split('\n'));
      this.rt.relocationRestored('actor', id).forEach((o) => this.carry(o));
    } else if ((e.kind === 'Committed' || e.kind === 'Aborted') && this.actors.has(id)) {
      this.running.add(id);
    } else if (e.kind === 'HandedOff' || e.kind === 'Failed') {
      this.running.delete(id);
      this.actors.delete(id);
    }
    r.deliver.forEach((dl) => this.receive(dl.operation));
    r.session.forEach((s) => this.handle(s));
    r.send.forEach((o) => this.carry(o));
    if (e.kind === 'CommitDue') this.enqueue(() => this.tick());
    if (['Aborting', 'Aborted', 'Failed'].includes(e.kind)) this.errors.push(`${e.kind} ${e.reason}`);
  }

  // -- commands ---------------------------------------------------------------

  async command(words) {
    const [cmd, actor, ...args] = words;
    switch (cmd) {
      case 'peers':
        for (const p of [actor, ...args]) {
          const [rid, port] = p.split('=');
          this.transport.peer(rid, Number(port));
        }
        return {};
      case 'activate':
        await this.rt.activate('actor', actor);
        this.actors.set(actor, []);
        this.running.add(actor);
        return {};
      case 'bind': return this.bind(actor, Number(args[0]));
      case 'send':
        await this.send(actor, Number(args[0]));
        if (args.length > 1) this.sessionSend(actor, Number(args[1]), Number(args[2]));
        return {};
      case 'move': {
        const state = Buffer.from(this.actors.get(actor).join('\n'));
        this.running.delete(actor);
        this.rt.beginRelocation('actor', actor, Number(args[0]), 1, { state }).send.forEach((o) => this.carry(o));
        return {};
      }
      case 'status': return { owns: this.running.has(actor) };
      case 'tally': return this.tally(actor);
      default: throw new Error(`unknown command ${words.join(' ')}`);
    }
  }

  /** Binds Session `session` to the Actor where it runs now; answers once Bound. */
  async bind(actor, session) {
    const route = await this.rt.resolve('actor', actor);
    if (route.kind !== 'ReadyRoute') throw new Error(`resolve ${actor}: ${route.kind}`);
    this.rt.openSession(session, 1);
    this.sessions.set(actor, session);
    this.carry(this.rt.bind(session, actor, {
      owner: { mesh: route.mesh, rid: route.node, generation: route.fence.nodeGeneration },
      objectGeneration: route.fence.objectGeneration,
      authorityOwnerGeneration: route.fence.authorityOwnerGeneration,
      ownerLeaseGeneration: route.fence.ownerLeaseGeneration,
    }));
    // Let the bind reply in: poll from outside the chain, so frames run meanwhile.
    for (let i = 0; i < 500; i++) {
      await new Promise((r) => setTimeout(r, 10));
      if (await this.enqueue(() => this.rt.binding(session, actor)) !== null) return {};
    }
    throw new Error(`session ${session} not bound to ${actor} in 5 s`);
  }

  async send(actor, count) {
    for (let i = 0; i < count; i++) {
      const seq = this.seq++;
      const kind = seq % 3 === 2 ? 'q' : 'm';
      const payload = `${this.name}|${kind}|${seq}`;
      const r = kind === 'q' ? await this.rt.request('actor', actor, payload) : await this.rt.send('actor', actor, payload);
      if (r.kind === 'Submitted' && this.carry(r.outbound)) {
        this.sent[kind].push(seq);
        if (kind === 'q') this.asked.set(r.correlation, payload);
      } else {
        this.errors.push(`send ${payload}: ${r.kind}`);
      }
    }
  }

  sessionSend(actor, session, count) {
    for (let i = 0; i < count; i++) {
      const seq = this.sessionSeq++;
      const payload = `${this.name}|s|${seq}`;
      const r = this.rt.sessionSend(session, actor, payload);
      if (r.kind === 'SessionSent') this.carry(r.outbound);
      if (r.kind === 'Unavailable') this.errors.push(`session send ${payload}: Unavailable ${r.reason}`);
      else this.sent.s.push(seq);
    }
  }

  tally(actor) {
    let once = 0;
    let bad = 0;
    let pending = 0;
    for (const [corr, payload] of this.asked) {
      const outs = this.outcomes.get(corr) ?? [];
      if (outs.length === 1 && outs[0].kind === 'Reply' && outs[0].payload.toString() === `re:${payload}`) once++;
      else if (outs.length > 0) bad++;
      else pending++;
    }
    return {
      sent: this.sent,
      requests: this.asked.size,
      ended_once: once,
      bad,
      pending,
      delivered: this.delivered,
      relayed: this.relayed,
      notices: this.notices,
      stray: this.stray,
      held: this.held,
      replied: this.replied,
      actor: this.running.has(actor) ? this.actors.get(actor) : null,
      // Where the Session's stored route says the Actor runs now.
      session_route: this.sessions.has(actor) ? Number(this.rt.binding(this.sessions.get(actor), actor)?.route.owner.rid ?? 0) : null,
      events: this.events,
      errors: this.errors,
    };
  }

  close() {
    clearInterval(this.timer);
    this.transport.close();
    this.rt.close();
  }
}

async function main() {
  const [name, rid, url] = process.argv.slice(2);
  const host = new Host(name, Number(rid), await z.RedisStore.connect(url));
  const port = await host.transport.listen();
  const say = (v) => process.stdout.write(`${JSON.stringify(v)}\n`);
  say({ ok: true, port });
  const lines = readline.createInterface({ input: process.stdin });
  // Commands run one after another, each after the frames queued before it.
  let commands = Promise.resolve();
  const quit = () => {
    commands = commands.then(() => {
      say({ ok: true });
      host.close();
      process.exit(0);
    });
  };
  lines.on('line', (line) => {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'quit') return quit();
    // bind waits for frames, so it runs beside the chain, not inside it.
    const run = words[0] === 'bind' ? () => host.command(words) : () => host.enqueue(() => host.command(words));
    commands = commands.then(run).then((v) => say({ ok: true, ...v }), (e) => say({ ok: false, error: `${e.code ?? ''} ${e.message}` }));
    return undefined;
  });
  lines.on('close', quit);
}

main().catch((e) => {
  process.stdout.write(`${JSON.stringify({ ok: false, error: e.message })}\n`);
  process.exit(1);
});
