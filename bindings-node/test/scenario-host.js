'use strict';
// The small host a scenario runs in (testdata/scenarios/README.md): it owns
// the nodes, one embedded store on one manual clock, and one network (a FIFO
// of frames), and does with every decision what a host does. Everything that
// happened is kept in the ledger the expectations read. A port of the JVM
// runner's ScenarioHost.
//
// Not a test file: the scenario runner is test/scenarios.test.js.

const z = require('..');
const J = require('./scenario-json.js');

const { fail } = J;

/**
 * A command's number (the header's fourth byte) by its name in the wire vectors' JSON
 * (docs/wire.md).
 */
const COMMANDS = {
  Message: 1, Request: 2, Reply: 3, Rejection: 4,
  SessionBind: 10, SessionBindReply: 11, SessionTombstone: 12, SessionTombstoneAck: 13,
  SessionRelay: 14, SessionPush: 15, SessionRefused: 16,
  SessionRelocationSeal: 42, SessionRelocationSealed: 43, SessionRelocationRoute: 44,
  RelocationRestore: 45, RelocationRelayReady: 46, RelocationCutover: 47,
  RelocationCommitted: 48, RelocationAbort: 49, MessageFollow: 50,
};

/**
 * Where a Message or Request frame holds its target's object kind: after the 10-byte header and
 * the u64 operation ID (core/src/wire/codec.rs).
 */
const KIND_AT = 10 + 8;

/** What the host does with a Restore: relocation_restored, abort it, or nothing. */
const RESTORES = ['ready', 'fail', 'ignore'];

/** Session decisions of onFrame -> the README's `Session.<Event>` names (the core's SessionEvent). */
const SESSION_EVENTS = {
  Bound: 'Bound', BindRefused: 'BindRefused', Pushed: 'Pushed', RelayRefused: 'RelayRefused',
  Sealed: 'Sealed', SessionClosed: 'Closed', Ignored: 'Ignored',
};

/** Relocation event kinds the README names `Relocation.<Event>`. */
const RELOCATION_EVENTS = ['Restore', 'Cutover', 'CommitDue', 'Committed', 'HandedOff', 'Aborting',
  'Aborted', 'Failed', 'CommitRetry', 'Ignored'];

/** A frame filter from a `rule` step: every field given must match. */
class Matcher {
  /** The filter `v` describes; null for JSON null (the rule is cleared). */
  static fromJson(v) {
    if (v === undefined || v === null) return null;
    const o = J.objectOf(v);
    const name = J.text(o, 'command');
    let command = null;
    if (name !== null) {
      // A name the wire does not know would silently match nothing: a file mistake.
      if (!Object.hasOwn(COMMANDS, name)) throw fail(`unknown command '${name}' in a rule`);
      command = COMMANDS[name];
    }
    return new Matcher(command, J.integer(o, 'from'), J.integer(o, 'to'));
  }

  constructor(command, from, to) {
    this.command = command;
    this.from = from;
    this.to = to;
  }

  matches(e) {
    return (this.from === null || this.from === e.from)
      && (this.to === null || this.to === e.to)
      && (this.command === null || (e.bytes.length > 3 && e.bytes[3] === this.command));
  }
}

/** Everything that happened, in the form the expectations read. */
class Ledger {
  constructor() {
    /** `{ op: bigint, node: number }`, in order. */
    this.delivered = [];
    /** `{ op, ended }`: one-way operations that ended without delivery. */
    this.ended = [];
    /** `{ op, outcome }`: requests' terminal results. */
    this.completed = [];
    /** `{ node, tag }`, in the order they happened. */
    this.events = [];
    this.late = 0;
    this.dropped = 0;
    this.held = 0;
    this.refreshed = 0;
    this.invalidated = 0;
  }
}

class ScenarioHost {
  /**
   * Starts the scenario's nodes: node n has routing ID n, node generation 1, owner lease
   * generation n, mesh "scenario"; all share one store and one manual clock at 0.
   */
  constructor(scenario) {
    this.clock = new z.ManualClock();
    this.store = new z.MemoryStore({ clock: this.clock });
    this.nodes = [];
    /** Frames in flight: `{ from, to, bytes }` (routing IDs as numbers). */
    this.network = [];
    this.heldBack = [];
    this.dropRule = null;
    this.holdRule = null;
    /** Frames matching these are corrupted as they are carried. */
    this.truncateRule = null;
    this.corruptKindRule = null;
    /** Operation names ("as") to operation IDs (bigint). */
    this.names = new Map();
    /** The Sessions opened, by `${node}/${session}`: what a push names. */
    this.sessions = new Map();
    /** Request names to their correlations (for `cancel`). */
    this.requests = new Map();
    this.reply = true;
    this.restore = 'ready';
    this.ledger = new Ledger();
    try {
      this.start(scenario);
    } catch (e) {
      this.close();
      throw e;
    }
  }

  start(scenario) {
    let config;
    try {
      config = J.config(J.object(scenario, 'config'));
    } catch (e) {
      if (e instanceof z.ConfigError) {
        throw fail(`the nodes do not start: ${e.constructor.name} ${e.code}: ${e.message}`, e);
      }
      throw e;
    }
    const n = J.value(scenario, 'nodes') === null ? 2 : J.integer(scenario, 'nodes');
    if (n === null) throw fail(`'nodes' is ${J.show(scenario.nodes)}, not a count`);
    for (let rid = 1; rid <= n; rid++) {
      try {
        this.nodes.push(new z.Runtime({ mesh: 'scenario', rid, generation: 1, lease: rid },
          { store: this.store, clock: this.clock, config }));
      } catch (e) {
        if (e instanceof z.ZlinkError) throw fail(`node ${rid} does not start: ${J.described(e)}`, e);
        throw e;
      }
    }
    const h = J.object(scenario, 'host');
    if (h !== null) this.host(h);
  }

  /** Changes the host's behaviour (the scenario's `host`, or a `host` step). */
  host(h) {
    const r = J.bool(h, 'reply');
    if (r !== null) this.reply = r;
    const s = J.text(h, 'restore');
    if (s !== null) {
      if (!RESTORES.includes(s)) throw fail(`unknown host restore '${s}'`);
      this.restore = s;
    }
  }

  close() {
    for (const node of this.nodes) node.close();
  }

  node(rid) {
    if (!Number.isInteger(rid) || rid < 1 || rid > this.nodes.length) throw fail(`no node ${rid}`);
    return this.nodes[rid - 1];
  }

  /** An operation's name for a message (its "as", else "#id"). */
  nameOf(op) {
    for (const [name, o] of [...this.names].sort()) {
      if (o === op) return name;
    }
    return `#${op}`;
  }

  /** The operation named `name` by an earlier step. */
  op(name) {
    const op = this.names.get(name);
    if (op === undefined) throw fail(`no operation named '${name}'`);
    return op;
  }

  // ---- the host ------------------------------------------------------------

  /** Puts a frame of node `from` on the network, unless a rule drops or holds it. */
  post(from, out) {
    if (out === null || out === undefined) {
      // The Node decoder reads these as optional; a host has nothing to carry then.
      throw fail(`node ${from} decided a frame to post but gave none`);
    }
    // A frame names the node that made it and its command.
    if (Number(out.sender.rid) !== Number(from)) throw fail(`a frame of node ${from} names ${out.sender.rid} as its sender`);
    if (COMMANDS[out.command] !== out.bytes[3]) throw fail(`command ${out.command} on a frame of command ${out.bytes[3]}`);
    const e = { from, to: Number(out.to.rid), bytes: out.bytes };
    if (this.dropRule !== null && this.dropRule.matches(e)) {
      this.ledger.dropped++;
    } else if (this.holdRule !== null && this.holdRule.matches(e)) {
      this.heldBack.push(e);
    } else {
      this.network.push(e);
    }
  }

  postAll(from, frames) {
    for (const f of frames) this.post(from, f);
  }

  event(at, tag) {
    this.ledger.events.push({ node: at, tag });
  }

  /** Records a delivery at `at`; answers a request with "re:" + payload if the host replies. */
  deliver(at, d) {
    const operation = d.operation;
    this.ledger.delivered.push({ op: operation.operationId, node: at });
    if (this.reply && operation.isRequest) {
      const answer = Buffer.concat([Buffer.from('re:', 'utf8'), operation.payload]);
      let out;
      try {
        out = this.node(at).reply(operation, answer);
      } catch (e) {
        throw fail(`reply: ${J.described(e)}`, e);
      }
      this.post(at, out);
    }
  }

  /** What a host does with one decision of node `at`. */
  act(at, action) {
    switch (action.kind) {
      case 'Deliver':
        this.deliver(at, action);
        break;
      case 'Relay':
        this.post(at, action.forward);
        // The notice goes to the original sender; a host reports that it was sent.
        if (action.notice !== null) {
          this.post(at, action.notice.outbound);
          this.node(at).noticeSettled(action.notice.token, true);
        }
        break;
      case 'Reject':
        this.post(at, action.outbound);
        break;
      case 'Send':
        this.postAll(at, action.outbounds);
        break;
      case 'Ended':
        this.ledger.ended.push({ op: action.operationId, ended: action });
        break;
      case 'Completed':
        this.ledger.completed.push({ op: action.completion.operationId, outcome: action.completion.outcome });
        break;
      case 'Late':
        this.ledger.late++;
        this.event(at, 'Late');
        break;
      case 'RouteRefreshed':
        this.ledger.refreshed++;
        this.ledger.invalidated += action.invalidated ? 1 : 0;
        this.event(at, 'RouteRefreshed');
        break;
      case 'Dropped':
        this.ledger.dropped++;
        this.event(at, 'Dropped');
        break;
      case 'PeerRefused':
        this.event(at, 'PeerRefused');
        break;
      case 'ForeignSender':
        this.event(at, 'ForeignSender');
        break;
      case 'Held':
        this.ledger.held++;
        this.event(at, 'Held');
        break;
      case 'SessionDeliver':
        this.event(at, 'SessionDeliver');
        break;
      case 'Relocation':
        this.relocation(at, action);
        break;
      default: {
        const session = Object.hasOwn(SESSION_EVENTS, action.kind) ? SESSION_EVENTS[action.kind] : null;
        if (session === null) throw fail(`node ${at} decided ${J.show(action)}, which this host does not know`);
        this.event(at, `Session.${session}`);
      }
    }
  }

  /**
   * A relocation step: its deliveries and session relays first (in order), then its frames,
   * then the event; a Restore is answered as `host.restore` says.
   */
  relocation(at, a) {
    for (const d of a.deliver) this.deliver(at, d);
    for (let i = 0; i < a.session.length; i++) this.event(at, 'SessionDeliver');
    this.postAll(at, a.send);
    const name = a.event.kind;
    if (!RELOCATION_EVENTS.includes(name)) throw fail(`unknown relocation event ${J.show(a.event)}`);
    this.event(at, `Relocation.${name}`);
    if (name !== 'Restore') return;
    const ident = a.event.identity;
    if (this.restore === 'ready') {
      let frames;
      try {
        frames = this.node(at).relocationRestored(ident.objectKind, ident.id);
      } catch (e) {
        throw fail(`relocation_restored: ${J.described(e)}`, e);
      }
      this.postAll(at, frames);
    } else if (this.restore === 'fail') {
      let aborted;
      try {
        aborted = this.node(at).abortRelocation(ident.objectKind, ident.id);
      } catch (e) {
        throw fail(`abort_relocation: ${J.described(e)}`, e);
      }
      this.relocation(at, aborted);
    }
  }

  /** Runs node `at`'s timers if they are due, as a host's loop does. */
  async due(at) {
    const node = this.node(at);
    const now = node.now();
    const deadline = node.nextDeadline();
    if (deadline !== null && deadline <= now) {
      for (const action of await node.onTimeout(now)) this.act(at, action);
    }
  }

  /**
   * The corruption rules: a frame matching `truncate` loses its last byte, one matching
   * `corrupt_kind` gets 0xEE at its target's object kind (on a copy of its bytes).
   */
  corrupt(e) {
    let bytes = e.bytes;
    if (this.truncateRule !== null && this.truncateRule.matches(e) && bytes.length > 0) {
      bytes = Buffer.from(bytes.subarray(0, bytes.length - 1));
    }
    if (this.corruptKindRule !== null && this.corruptKindRule.matches(e) && bytes.length > KIND_AT) {
      bytes = Buffer.from(bytes);
      bytes[KIND_AT] = 0xEE;
    }
    return bytes === e.bytes ? e : { from: e.from, to: e.to, bytes };
  }

  /** Hands the first frame in flight to its node: false when none is in flight. */
  async stepFrame() {
    let e = this.network.shift();
    if (e === undefined) return false;
    e = this.corrupt(e);
    const action = await this.node(e.to).onFrame(e.from, e.bytes);
    this.act(e.to, action);
    await this.due(e.to);
    return true;
  }
}

module.exports = { ScenarioHost, Matcher, COMMANDS };
