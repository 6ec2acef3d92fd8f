'use strict';
// The `expect` step (testdata/scenarios/README.md, "Expectations"): one
// function per key, checked in the Rust, Python and JVM runners' order
// against the host's ledger (a port of the JVM runner's ScenarioExpectations).
//
// Not a test file: the scenario runner is test/scenarios.test.js.

const J = require('./scenario-json.js');

const { fail } = J;

/** The keys an expect step may have; any other is a mistake in the file, not skipped. */
const KEYS = ['do', 'delivered', 'not_delivered', 'completed', 'ended', 'events', 'no_events',
  'peer_endpoint', 'owner', 'count', 'stats', 'exactly_once', 'order'];

/** The README's stats names -> where they are in `Runtime.stats()` (a group is a nested object). */
const STATS = {
  cache_hits: ['cache_hits'],
  cache_misses: ['cache_misses'],
  store_reads: ['store_reads'],
  relays: ['follow', 'relays'],
  notifications_sent: ['follow', 'notifications_sent'],
  rejections_sent: ['follow', 'rejections_sent'],
  frames_dropped: ['follow', 'frames_dropped'],
  relocation_held: ['relocation', 'held'],
  relocation_relayed: ['relocation', 'relayed'],
  relocation_committed: ['relocation', 'committed'],
  relocation_aborted: ['relocation', 'aborted'],
  requests_unroutable: ['requests', 'unroutable'],
  requests_undecodable_answered: ['requests', 'undecodable_answered'],
};

/** An event list as the failure messages show it: `[(node, tag), ...]`. */
const showEvents = (events) => `[${events.map((e) => `(${e.node}, ${e.tag})`).join(', ')}]`;

/** Delivered `times` (default 1) times in all, each at `node`. */
function delivered(host, want) {
  const op = host.op(J.strOf(want, 'op'));
  const node = J.intOf(want, 'node');
  const times = J.value(want, 'times') === null ? 1 : J.intOf(want, 'times');
  const at = host.ledger.delivered.filter((d) => d.op === op).map((d) => d.node);
  if (at.length !== times || at.some((n) => n !== node)) {
    throw fail(`${host.nameOf(op)} delivered at [${at.join(', ')}], expected ${times} time(s) at node ${node}`);
  }
}

/** Delivered nowhere. */
function notDelivered(host, name) {
  if (typeof name !== 'string') throw fail('op names are strings');
  const op = host.op(name);
  const d = host.ledger.delivered.find((x) => x.op === op);
  if (d !== undefined) throw fail(`${host.nameOf(op)} was delivered at node ${d.node}`);
}

/**
 * An outcome against `want`: its name, the error (an answer the target gave as an error,
 * Handler or Decode, is "Replied", and that is its `kind`), the Unavailable reason, a reply's
 * payload.
 */
function outcome(want, got) {
  const names = ['Reply', 'Error', 'Timeout', 'Cancelled', 'Shutdown'];
  if (!names.includes(got.kind)) throw fail(`unknown outcome ${J.show(got)}`);
  let error = null;
  let reason = null;
  let kind = null;
  if (got.kind === 'Error') {
    if (got.errorKind === 'Handler' || got.errorKind === 'Decode') {
      error = 'Replied';
      kind = got.errorKind;
    } else {
      error = got.errorKind;
      reason = got.reason;
    }
  }
  J.expectField(want, 'outcome', got.kind);
  J.expectField(want, 'error', error);
  J.expectField(want, 'reason', reason);
  J.expectField(want, 'kind', kind);
  const payload = J.text(want, 'payload');
  if (payload !== null && got.kind === 'Reply' && !Buffer.from(payload, 'utf8').equals(got.payload)) {
    throw fail(`reply ${J.repr(got.payload.toString('utf8'))}, expected ${J.repr(payload)}`);
  }
}

/** The request's one terminal result is what `want` says. */
function completed(host, want) {
  const op = host.op(J.strOf(want, 'op'));
  const got = host.ledger.completed.filter((c) => c.op === op).map((c) => c.outcome);
  if (got.length !== 1) throw fail(`${host.nameOf(op)} completed ${got.length} times: ${J.show(got)}`);
  try {
    outcome(want, got[0]);
  } catch (e) {
    if (e instanceof J.ScenarioFailure) throw fail(`${host.nameOf(op)}: ${e.message}`);
    throw e;
  }
}

/** The one-way operation ended once, with `failure` (and `reason`). */
function ended(host, want) {
  const op = host.op(J.strOf(want, 'op'));
  const ends = host.ledger.ended.filter((e) => e.op === op).map((e) => e.ended);
  if (ends.length !== 1) throw fail(`${host.nameOf(op)} ended ${ends.length} times`);
  J.expectField(want, 'failure', ends[0].failure);
  J.expectField(want, 'reason', ends[0].reason);
}

/** These events happened in this order (others may come between). */
function events(host, wanted) {
  const all = host.ledger.events;
  let from = 0;
  for (const w of wanted) {
    const want = J.objectOf(w);
    const node = J.intOf(want, 'node');
    const tag = J.strOf(want, 'tag');
    const i = all.findIndex((e, at) => at >= from && e.node === node && e.tag === tag);
    if (i < 0) throw fail(`no event ${tag} at node ${node} (in order) among ${showEvents(all)}`);
    from = i + 1;
  }
}

/** No such event happened (at `node`, or anywhere). */
function noEvent(host, want) {
  const tag = J.strOf(want, 'tag');
  const node = J.integer(want, 'node');
  if (host.ledger.events.some((e) => e.tag === tag && (node === null || node === e.node))) {
    throw fail(`event ${tag} happened: ${showEvents(host.ledger.events)}`);
  }
}

/** Where `node` would reach `rid` (`endpoint` null: nowhere). */
function peerEndpoint(host, want) {
  if (want === null) throw fail('peer_endpoint needs an object');
  const got = host.node(J.intOf(want, 'node')).peerEndpoint(J.intOf(want, 'rid'));
  const expected = J.text(want, 'endpoint');
  if ((got ?? null) !== expected) throw fail(`peer endpoint ${J.repr(got)}, expected ${J.repr(expected)}`);
}

/** `node` owns the object now and no other node does (`node` null: none). */
function owner(host, want) {
  if (want === null) throw fail('owner needs an object');
  const kind = J.kindOf(want);
  const id = J.strOf(want, 'id');
  const owners = [];
  for (let rid = 1; rid <= host.nodes.length; rid++) {
    if (host.node(rid).owned(kind, id) !== null) owners.push(rid);
  }
  const node = J.integer(want, 'node');
  const expected = node === null ? [] : [node];
  if (owners.join(',') !== expected.join(',')) {
    throw fail(`owners of ${J.repr(id)}: [${owners.join(', ')}], expected [${expected.join(', ')}]`);
  }
}

/** One count so far. */
function count(host, key, value) {
  const ledger = host.ledger;
  const counts = {
    delivered: () => ledger.delivered.length,
    held: () => ledger.held,
    late: () => ledger.late,
    dropped: () => ledger.dropped,
    in_flight: () => host.network.length,
    refreshed: () => ledger.refreshed,
    invalidated: () => ledger.invalidated,
    completed: () => ledger.completed.length,
    ended: () => ledger.ended.length,
  };
  if (!Object.hasOwn(counts, key)) throw fail(`unknown count '${key}'`);
  const got = counts[key]();
  if (got !== J.integerOf(value)) throw fail(`count ${key} is ${got}, expected ${J.show(value)}`);
}

/** Counters of one node. */
function stats(host, want) {
  if (want === null) throw fail('stats needs a node');
  const node = J.integer(want, 'node');
  if (node === null) throw fail('stats needs a node');
  const all = host.node(node).stats();
  for (const [k, v] of Object.entries(want)) {
    if (k === 'node') continue;
    if (!Object.hasOwn(STATS, k)) throw fail(`unknown stat '${k}'`);
    let got = all;
    for (const part of STATS[k]) got = got?.[part];
    if (typeof got !== 'number') {
      throw fail(`node ${node} has no counter ${STATS[k].join('.')} (stats(): ${J.show(all)})`);
    }
    if (got !== J.integerOf(v)) throw fail(`node ${node} stat ${k} is ${got}, expected ${J.show(v)}`);
  }
}

/**
 * No operation delivered twice, none both delivered and ended, every named one delivered,
 * ended or completed.
 */
function exactlyOnce(host) {
  const ledger = host.ledger;
  const seen = new Map();
  for (const d of ledger.delivered) seen.set(d.op, (seen.get(d.op) ?? 0) + 1);
  for (const [op, n] of [...seen].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    if (n > 1) throw fail(`${host.nameOf(op)} delivered ${n} times`);
  }
  for (const [name, op] of [...host.names].sort()) {
    const wasDelivered = seen.has(op);
    const wasEnded = ledger.ended.some((x) => x.op === op);
    const wasCompleted = ledger.completed.some((x) => x.op === op);
    if (wasDelivered && wasEnded) throw fail(`${name} both delivered and ended`);
    if (!wasDelivered && !wasEnded && !wasCompleted) throw fail(`${name} lost: neither delivered nor ended`);
  }
}

/** These operations were delivered at `node` in this order. */
function order(host, want) {
  if (want === null) throw fail('order needs an object');
  const node = J.intOf(want, 'node');
  if (!Object.hasOwn(want, 'ops')) throw fail('order needs ops');
  const ops = J.array(want, 'ops').map((n) => host.op(typeof n === 'string' ? n : ''));
  const at = host.ledger.delivered.filter((d) => d.node === node && ops.includes(d.op)).map((d) => d.op);
  if (at.length !== ops.length || at.some((op, i) => op !== ops[i])) {
    throw fail(`delivered at node ${node} in order [${at.map((op) => host.nameOf(op)).join(', ')}]`);
  }
}

/** Checks one `expect` step against everything that happened so far. */
function checkExpectations(host, step) {
  const unknown = Object.keys(step).filter((k) => !KEYS.includes(k)).sort();
  if (unknown.length > 0) throw fail(`unknown expectations ${J.show(unknown)}`);
  for (const w of J.array(step, 'delivered')) delivered(host, J.objectOf(w));
  for (const name of J.array(step, 'not_delivered')) notDelivered(host, name);
  for (const w of J.array(step, 'completed')) completed(host, J.objectOf(w));
  for (const w of J.array(step, 'ended')) ended(host, J.objectOf(w));
  events(host, J.array(step, 'events'));
  for (const w of J.array(step, 'no_events')) noEvent(host, J.objectOf(w));
  if (Object.hasOwn(step, 'peer_endpoint')) peerEndpoint(host, J.object(step, 'peer_endpoint'));
  if (Object.hasOwn(step, 'owner')) owner(host, J.object(step, 'owner'));
  const counts = J.object(step, 'count');
  if (counts !== null) for (const [k, v] of Object.entries(counts)) count(host, k, v);
  if (Object.hasOwn(step, 'stats')) stats(host, J.object(step, 'stats'));
  if (J.bool(step, 'exactly_once') === true) exactlyOnce(host);
  if (Object.hasOwn(step, 'order')) order(host, J.object(step, 'order'));
}

module.exports = { checkExpectations };
