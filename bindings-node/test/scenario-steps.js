'use strict';
// The steps of a scenario (testdata/scenarios/README.md, "Steps"), one
// function per kind, each doing over the Node API what the Rust, Python and
// JVM runners do over theirs (a port of the JVM runner's ScenarioSteps).
//
// Not a test file: the scenario runner is test/scenarios.test.js.

const z = require('..');
const J = require('./scenario-json.js');
const { Matcher } = require('./scenario-host.js');
const { checkExpectations } = require('./scenario-expectations.js');

const { fail } = J;

// ---- a call's error ---------------------------------------------------------

/**
 * Runs a call step's call (sync or async) against `expect.error`: a zlink error must be the
 * error the step names (README names, see errorName); a success must not have been expected
 * to fail. Returns `{ refused: true }` when refused as expected (nothing more to check), else
 * `{ refused: false, value }`. An error that is not a zlink error is not the step's: rethrown.
 */
async function call(step, fn) {
  const expect = J.object(step, 'expect');
  const want = expect === null ? null : J.text(expect, 'error');
  let value;
  try {
    value = await fn();
  } catch (e) {
    if (!(e instanceof z.ZlinkError)) throw e;
    const got = J.errorName(e);
    const detail = `${got} (${e.constructor.name}.code='${e.code}': ${e.message})`;
    if (want === null) throw fail(`unexpected error ${detail}`, e);
    if (got !== want) throw fail(`expected error ${want}, got ${detail}`, e);
    return { refused: true, value: null };
  }
  if (want !== null) throw fail(`expected error ${want}, the call succeeded`);
  return { refused: false, value };
}

/** The step's `expect`, or an empty object (expects nothing). */
function expectOf(step) {
  return J.object(step, 'expect') ?? {};
}

// ---- lifecycle and manual peers -------------------------------------------

/** activate, create, publish_ready, begin_release, complete_release, release: one write each. */
async function lifecycle(host, step, what) {
  const node = host.node(J.intOf(step, 'node'));
  const kind = J.kindOf(step);
  const id = J.strOf(step, 'id');
  await call(step, async () => {
    switch (what) {
      case 'activate': return node.activate(kind, id);
      case 'create': return node.create(kind, id);
      case 'publish_ready': return node.publishReady(kind, id);
      case 'begin_release': return node.beginRelease(kind, id);
      case 'complete_release': return node.completeRelease(kind, id);
      default:
        // release: begin_release, then complete_release.
        await node.beginRelease(kind, id);
        return node.completeRelease(kind, id);
    }
  });
}

async function publishDescriptor(host, step) {
  const node = host.node(J.intOf(step, 'node'));
  const endpoint = J.strOf(step, 'endpoint');
  const identity = J.strOf(step, 'identity');
  await call(step, () => node.publishDescriptor(endpoint, identity));
}

async function addManualPeer(host, step) {
  const node = host.node(J.intOf(step, 'node'));
  const endpoint = J.strOf(step, 'endpoint');
  await call(step, () => node.addManualPeer(endpoint));
}

/** ensure_manual_peer, peer_closed: a replacement to perform now, or none. */
async function manualPeer(host, step, what) {
  const node = host.node(J.intOf(step, 'node'));
  const endpoint = J.strOf(step, 'endpoint');
  const r = await call(step, () => (what === 'peer_closed'
    ? node.peerClosed(endpoint) : node.ensureManualPeer(endpoint)));
  if (r.refused) return;
  const found = r.value;
  const want = expectOf(step);
  const w = J.bool(want, 'replacement');
  if (w !== null && w !== (found !== null)) throw fail(`expected replacement ${w}, got ${J.show(found)}`);
  const rid = J.integer(want, 'rid');
  if (rid !== null && found !== null && Number(found.descriptor.rid) !== rid) {
    throw fail(`replacement names ${found.descriptor.rid}, expected ${rid}`);
  }
}

async function peerOpened(host, step) {
  const node = host.node(J.intOf(step, 'node'));
  const endpoint = J.strOf(step, 'endpoint');
  const rid = J.intOf(step, 'rid');
  await call(step, () => node.peerOpened(endpoint, rid));
}

// ---- resolution and operations --------------------------------------------

async function resolve(host, step) {
  const node = host.node(J.intOf(step, 'node'));
  const kind = J.kindOf(step);
  const id = J.strOf(step, 'id');
  const r = await call(step, () => node.resolve(kind, id));
  const want = J.object(step, 'expect');
  if (r.refused || want === null) return;
  const got = r.value;
  let at = null;
  let reason = null;
  switch (got.kind) {
    case 'ReadyRoute': at = Number(got.node); break;
    case 'Missing': case 'StoreFailure': break;
    case 'Unavailable': reason = got.reason; break;
    default: throw fail(`resolve gave ${J.show(got)}`);
  }
  try {
    J.expectTag(want, got.kind, at, reason);
  } catch (e) {
    if (e instanceof J.ScenarioFailure) throw fail(`${e.message} (${J.show(got)})`);
    throw e;
  }
}

async function lookupCached(host, step) {
  const node = host.node(J.intOf(step, 'node'));
  const kind = J.kindOf(step);
  const id = J.strOf(step, 'id');
  const r = await call(step, () => node.lookupCached(kind, id));
  if (r.refused) return;
  const hit = r.value;
  const want = expectOf(step);
  const w = J.bool(want, 'hit');
  if (w !== null && w !== (hit !== null)) throw fail(`expected hit ${w}, got ${J.show(hit)}`);
  const n = J.integer(want, 'node');
  if (n !== null && hit !== null && Number(hit.node) !== n) throw fail(`expected node ${n}, got ${hit.node}`);
}

/**
 * send, request: a submitted frame is posted and its operation named ("as"); a request's
 * correlation is kept for `cancel`. No timeout_ms: the core's default (5 s).
 */
async function send(host, step, request) {
  const rid = J.intOf(step, 'node');
  const node = host.node(rid);
  const kind = J.kindOf(step);
  const id = J.strOf(step, 'id');
  const payload = J.payloadOf(step, 'payload');
  const options = { instanceIntent: J.bool(step, 'instance') === true };
  const timeout = J.integer(step, 'timeout_ms');
  if (request && timeout !== null) options.timeoutMs = timeout;
  const r = await call(step, () => (request
    ? node.request(kind, id, payload, options) : node.send(kind, id, payload, options)));
  if (r.refused) return;
  const got = r.value;
  let to = null;
  let reason = null;
  const name = J.text(step, 'as');
  switch (got.kind) {
    case 'Submitted':
      to = Number(got.outbound.to.rid);
      if (name !== null) {
        if (request) {
          if (got.correlation === null) throw fail(`a submitted request without a correlation: ${J.show(got)}`);
          host.requests.set(name, got.correlation);
        }
        host.names.set(name, got.operationId);
      }
      host.post(rid, got.outbound);
      break;
    case 'NotFound': case 'ColdActivation': case 'StoreFailure': break;
    case 'Unavailable': reason = got.reason; break;
    default: throw fail(`${request ? 'request' : 'send'} gave ${J.show(got)}`);
  }
  const want = J.object(step, 'expect');
  if (want !== null) J.expectTag(want, got.kind, to, reason);
}

/** Cancels a named request; its Completion (if it had not ended) is recorded. */
async function cancel(host, step) {
  const name = J.strOf(step, 'op');
  const correlation = host.requests.get(name);
  if (correlation === undefined) throw fail(`no request named '${name}'`);
  const node = host.node(J.intOf(step, 'node'));
  // A cancel never fails; through call() an expected error in the file is not ignored.
  const r = await call(step, () => node.cancel(correlation));
  if (r.refused) return;
  const done = r.value;
  if (done !== null) host.ledger.completed.push({ op: done.operationId, outcome: done.outcome });
  const w = J.bool(expectOf(step), 'cancelled');
  if (w !== null && w !== (done !== null)) throw fail(`expected cancelled ${w}, got ${done !== null}`);
}

// ---- the network and the clock --------------------------------------------

/** Carries frames until none is in flight. */
async function carry(host) {
  let n = 0;
  while (await host.stepFrame()) {
    n++;
    if (n > 100000) throw fail('the network never went quiet');
  }
}

/** Carries `frames` frames (fewer if the network goes quiet). */
async function stepFrames(host, step) {
  const frames = J.intOf(step, 'frames');
  for (let i = 0; i < frames; i++) await host.stepFrame();
}

/** Sets or clears (null) the drop, hold and corruption rules the step names; others stay. */
function rule(host, step) {
  if (Object.hasOwn(step, 'drop')) host.dropRule = Matcher.fromJson(step.drop);
  if (Object.hasOwn(step, 'hold')) host.holdRule = Matcher.fromJson(step.hold);
  if (Object.hasOwn(step, 'truncate')) host.truncateRule = Matcher.fromJson(step.truncate);
  if (Object.hasOwn(step, 'corrupt_kind')) host.corruptKindRule = Matcher.fromJson(step.corrupt_kind);
}

/** Held frames go back on the network, in order. */
function releaseHeld(host) {
  host.network.push(...host.heldBack);
  host.heldBack = [];
}

/** Moves the clock, then runs every node's due timers, in node order. */
async function advance(host, step) {
  host.clock.advance(J.intOf(step, 'ms'));
  for (let rid = 1; rid <= host.nodes.length; rid++) await host.due(rid);
}

// ---- relocation -------------------------------------------------------------

async function beginRelocation(host, step) {
  const rid = J.intOf(step, 'node');
  const target = host.node(J.intOf(step, 'target')).identity();
  const node = host.node(rid);
  const kind = J.kindOf(step);
  const id = J.strOf(step, 'id');
  const state = J.payloadOf(step, 'state');
  const r = await call(step, () => node.beginRelocation(kind, id, target.rid, target.generation,
    { saved: [], state }));
  if (!r.refused) host.postAll(rid, r.value.send);
}

async function abortRelocation(host, step) {
  const rid = J.intOf(step, 'node');
  const node = host.node(rid);
  const kind = J.kindOf(step);
  const id = J.strOf(step, 'id');
  const r = await call(step, () => node.abortRelocation(kind, id));
  if (!r.refused) host.relocation(rid, r.value);
}

// ---- sessions -----------------------------------------------------------------

/** Opens Session `session`, lifecycle generation 1. */
async function openSession(host, step) {
  const node = host.node(J.intOf(step, 'node'));
  const session = J.intOf(step, 'session');
  const r = await call(step, () => node.openSession(session, 1));
  if (!r.refused) host.sessions.set(`${J.intOf(step, 'node')}/${session}`, r.value);
}

/** Binds to Actor `id` at the route node `owner` hands out; posts the frame. */
async function bind(host, step) {
  const rid = J.intOf(step, 'node');
  const id = J.strOf(step, 'id');
  const ownerRid = J.intOf(step, 'owner');
  const owner = host.node(ownerRid);
  let end;
  try {
    end = owner.ownerRouteEnd('actor', id);
  } catch (e) {
    throw fail(J.described(e), e);
  }
  if (end === null) throw fail(`node ${ownerRid} does not own '${id}'`);
  const node = host.node(rid);
  const session = J.intOf(step, 'session');
  const r = await call(step, () => node.bind(session, id, end));
  if (!r.refused) host.post(rid, r.value);
}

async function sessionSend(host, step) {
  const rid = J.intOf(step, 'node');
  const node = host.node(rid);
  const session = J.intOf(step, 'session');
  const id = J.strOf(step, 'id');
  const payload = J.payloadOf(step, 'payload');
  const r = await call(step, () => node.sessionSend(session, id, payload));
  if (r.refused) return;
  const got = r.value;
  let tag;
  let op = null;
  switch (got.kind) {
    case 'SessionSent':
      host.post(rid, got.outbound);
      tag = 'Sent';
      op = got.operationId;
      break;
    case 'SessionHeld':
      tag = 'Held';
      op = got.operationId;
      break;
    case 'Unavailable':
      tag = 'Unavailable';
      break;
    default:
      throw fail(`session_send gave ${J.show(got)}`);
  }
  const name = J.text(step, 'as');
  if (name !== null && op !== null) host.names.set(name, op);
  const want = J.object(step, 'expect');
  if (want !== null) J.expectTag(want, tag, null, null);
}

/**
 * The Actor's owner pushes on the binding Session `session` (opened on node `session_node`)
 * holds, if it has one there; posts the frame.
 */
async function push(host, step) {
  const rid = J.intOf(step, 'node');
  const node = host.node(rid);
  const key = `${J.intOf(step, 'session_node')}/${J.intOf(step, 'session')}`;
  const session = host.sessions.get(key);
  if (session === undefined) throw fail(`no session ${key} opened`);
  const id = J.strOf(step, 'id');
  const payload = J.payloadOf(step, 'payload');
  const r = await call(step, () => node.push(id, session, payload));
  if (r.refused) return;
  if (r.value !== null) host.post(rid, r.value);
  const w = J.bool(expectOf(step), 'pushed');
  if (w !== null && w !== (r.value !== null)) throw fail(`expected pushed ${w}, got ${r.value !== null}`);
}

/** `owner_lease_invalidated` and `store_recovered`: the host reports what its transport or store saw. */
async function invalidated(host, step, lease) {
  const node = host.node(J.intOf(step, 'node'));
  const r = await call(step, () => (lease
    ? node.onOwnerLeaseInvalidated(J.intOf(step, 'of'), J.intOf(step, 'lease'))
    : node.onStoreRecovery()));
  if (r.refused) return;
  const want = expectOf(step)?.removed;
  if (typeof want === 'number' && want !== r.value) throw fail(`removed ${r.value}, expected ${want}`);
}

/** The Session's connection closed ("physical", default true) or it ended: posts the notifications. */
async function disconnect(host, step) {
  const rid = J.intOf(step, 'node');
  const node = host.node(rid);
  const session = J.intOf(step, 'session');
  const physical = J.bool(step, 'physical') !== false;
  const r = await call(step, () => node.disconnectSession(session, physical));
  if (!r.refused) host.postAll(rid, r.value);
}

// ---- dispatch -------------------------------------------------------------------

/** Runs one step; a ScenarioFailure says why it did not give what the file says. */
async function runStep(host, step) {
  const what = J.strOf(step, 'do');
  switch (what) {
    case 'activate': case 'create': case 'publish_ready': case 'begin_release':
    case 'complete_release': case 'release':
      return lifecycle(host, step, what);
    case 'publish_descriptor': return publishDescriptor(host, step);
    case 'add_manual_peer': return addManualPeer(host, step);
    case 'ensure_manual_peer': case 'peer_closed': return manualPeer(host, step, what);
    case 'peer_opened': return peerOpened(host, step);
    case 'resolve': return resolve(host, step);
    case 'lookup_cached': return lookupCached(host, step);
    case 'send': return send(host, step, false);
    case 'request': return send(host, step, true);
    case 'cancel': return cancel(host, step);
    case 'carry': return carry(host);
    case 'step': return stepFrames(host, step);
    case 'rule': return rule(host, step);
    case 'release_held': return releaseHeld(host);
    case 'advance': return advance(host, step);
    case 'begin_relocation': return beginRelocation(host, step);
    case 'abort_relocation': return abortRelocation(host, step);
    case 'host': return host.host(step);
    case 'open_session': return openSession(host, step);
    case 'bind': return bind(host, step);
    case 'session_send': return sessionSend(host, step);
    case 'push': return push(host, step);
    case 'owner_lease_invalidated': return invalidated(host, step, true);
    case 'store_recovered': return invalidated(host, step, false);
    case 'disconnect': return disconnect(host, step);
    case 'expect': return checkExpectations(host, step);
    case 'build': throw fail('a build step comes only first, alone');
    default: throw fail(`unknown step '${what}'`);
  }
}

module.exports = { runStep };
