'use strict';
// Reads the bytes the native side writes with `bridge::encode` (see
// bridge/src/encode.rs): little-endian numbers; text and bytes with a u32
// length; a presence byte before an optional value; a u32 count before a
// list; a closed set's value as its u8 code (a rarer one as its name). One
// function per result, each reading the fields in the order Rust writes
// them, each result read whole. Results are plain objects with a `kind`:
// `{ kind: 'ReadyRoute', ... } | { kind: 'Missing' } | ...`; 64-bit IDs and
// generations are `bigint`, milliseconds are `number`, payloads `Buffer`.

// The closed sets' names by number, generated from the bridge (codes.js).
const codes = require('./codes');

class Reader {
  constructor(buf) {
    this.buf = buf;
    this.at = 0;
  }

  u8() { return this.buf.readUInt8(this.at++); }
  bool() { return this.u8() !== 0; }
  u32() { const v = this.buf.readUInt32LE(this.at); this.at += 4; return v; }
  u64() { const v = this.buf.readBigUInt64LE(this.at); this.at += 8; return v; }
  /** A u64 that is a count of milliseconds: a number. */
  ms() { return Number(this.u64()); }
  bytes() { const n = this.u32(); const b = Buffer.from(this.buf.subarray(this.at, this.at + n)); this.at += n; return b; }
  str() { const n = this.u32(); const s = this.buf.toString('utf8', this.at, this.at + n); this.at += n; return s; }
  opt(read) { return this.bool() ? read() : null; }
  list(read) { const n = this.u32(); const out = new Array(n); for (let i = 0; i < n; i++) out[i] = read(); return out; }
  /** A closed set's value: its u8 code, named by `names` (codes.js). */
  code(names) { return this.named(names, this.u8()); }
  reason() { const c = this.u8(); return c === 0 ? null : this.named(codes.UnavailableReason, c); }
  /** A tag or code no value of `what` has: the bytes were not written by this library. */
  unknown(what, c) { return broken(`unknown ${what} ${c}`); }
  named(names, c) {
    const v = names[c];
    if (v == null) throw broken(`unknown code ${c}`);
    return v;
  }
}

function required(value, what) {
  if (value === null) throw broken(what);
  return value;
}

function broken(what) {
  const e = new Error(`a result the library wrote is not readable: ${what}`);
  e.code = 'Protocol';
  return e;
}

/** Reads one whole result with `fn`; bytes left over are an error. */
function read(buf, fn) {
  const r = new Reader(buf);
  const v = fn(r);
  if (r.at !== buf.length) throw broken(`${buf.length - r.at} bytes left over`);
  return v;
}

// The result types the bridge's surface describes, read by generated code.
const surface = require('./surface');
const { actorRoute, nodeRef, outbound, readyRoute, routeEnd, sessionRef } = surface;
const owned = surface.ownedObject;
const fence = surface.routeFence;
const resolution = surface.resolution;
const sent = surface.sendResult;
const sessionSent = surface.sessionSendResult;
const key = (r) => ({ objectKind: r.code(codes.ObjectKind), id: r.str() });

const identity = (r) => ({ mesh: r.str(), rid: r.u64(), generation: r.u64(), lease: r.u64() });
const bindingRoute = (r) => ({
  actor: r.str(), route: actorRoute(r), binding: { generation: r.u64(), token: r.u64() },
  session: sessionRef(r), admissionDeadlineMs: r.ms(),
});

/** A delivered operation: its fields, and its frame (what the host gives back). */
function operation(r) {
  const op = {
    operationId: r.u64(), ...key(r), payload: r.bytes(), origin: nodeRef(r), fence: fence(r),
    hopCount: r.u8(), objectGeneration: r.u64(), correlation: r.opt(() => r.u64()),
  };
  op.isRequest = op.correlation !== null;
  Object.defineProperty(op, 'frame', { value: r.bytes(), enumerable: false });
  return op;
}

function completion(r) {
  const c = { correlation: r.u64(), operationId: r.u64(), ...key(r) };
  switch (r.u8()) {
    case 1: c.outcome = { kind: 'Reply', payload: r.bytes() }; break;
    case 2: c.outcome = { kind: 'Error', errorKind: r.str(), reason: r.reason(), code: r.u32(), message: r.str() }; break;
    case 3: c.outcome = { kind: 'Timeout' }; break;
    case 4: c.outcome = { kind: 'Cancelled' }; break;
    case 5: c.outcome = { kind: 'Shutdown' }; break;
    default: throw broken('outcome');
  }
  c.origin = r.opt(() => ({ spot: r.str(), objectGeneration: r.u64() }));
  c.originGone = r.bool();
  return c;
}

function deliver(r) {
  const op = r.opt(() => operation(r));
  if (op === null) throw broken('delivery');
  return { kind: 'Deliver', operation: op, objectGeneration: r.u64() };
}

function sessionDeliver(r) {
  const operationId = r.u64();
  const session = r.opt(() => sessionRef(r));
  if (session === null) throw broken('session');
  return { kind: 'SessionDeliver', operationId, session, actor: r.str(), sequence: r.u64(), relayKind: r.str(), payload: r.bytes() };
}

function sessionEvent(r) {
  const event = r.u8();
  const session = r.opt(() => sessionRef(r));
  const actor = r.str();
  const route = r.opt(() => bindingRoute(r));
  const bindRefusal = r.str();
  const payload = r.bytes();
  const operationId = r.u64();
  const relayRefusal = r.str();
  const relocation = r.u64();
  const sealed = r.bool();
  const detail = r.str();
  if (event === 6) return { kind: 'Ignored', reason: detail };
  if (session === null) throw broken('session event');
  switch (event) {
    case 1: return { kind: 'Bound', session, actor, route: required(route, 'bound route') };
    case 2: return { kind: 'BindRefused', session, actor, reason: bindRefusal };
    case 3: return { kind: 'Pushed', session, actor, payload };
    case 4: return { kind: 'RelayRefused', operationId, session, actor, reason: relayRefusal };
    case 5: return { kind: 'Sealed', session, actor, relocation, sealed };
    case 7: return { kind: 'SessionClosed', session };
    default: throw broken('session event');
  }
}

const RELOCATION_EVENTS = {
  1: 'Restore', 2: 'Cutover', 3: 'Committed', 4: 'HandedOff', 5: 'Aborted', 6: 'Failed',
  7: 'CommitRetry', 8: 'Ignored', 9: 'Aborting', 10: 'CommitDue',
};

function relocation(r) {
  const name = RELOCATION_EVENTS[r.u8()];
  if (name === undefined) throw broken('relocation event');
  const identity = { relocation: r.u64(), ...key(r), objectGeneration: r.u64() };
  const peer = r.opt(() => nodeRef(r));
  const reason = r.str();
  const refusal = r.str();
  const relayed = r.u64();
  const state = r.bytes();
  const event = { kind: name, identity };
  if (name === 'Restore' || name === 'Committed') Object.assign(event, { sourceRid: peer?.rid ?? 0n, sourceGeneration: peer?.generation ?? 0n });
  if (name === 'Restore') event.state = state;
  if (name === 'HandedOff') Object.assign(event, { targetRid: peer?.rid ?? 0n, targetGeneration: peer?.generation ?? 0n });
  if (name === 'Cutover') event.relayed = relayed;
  if (name === 'Aborting' || name === 'Aborted' || name === 'Failed') event.reason = reason;
  if (name === 'Ignored') event.refusal = refusal;
  const deliverList = r.list(() => deliver(r));
  const session = r.list(() => sessionDeliver(r));
  const send = r.list(() => outbound(r));
  return { kind: 'Relocation', event, deliver: deliverList, send, session };
}

function inbound(r) {
  switch (r.u8()) {
    case 1: return deliver(r);
    case 2: {
      const forward = required(r.opt(() => outbound(r)), 'relay');
      const notice = r.opt(() => ({ outbound: outbound(r), token: r.bytes() }));
      return { kind: 'Relay', forward, notice };
    }
    case 3: return { kind: 'Reject', outbound: required(r.opt(() => outbound(r)), 'reject') };
    case 4: return { kind: 'Ended', operationId: r.u64(), ...key(r), failure: r.str(), reason: r.reason() };
    case 5: return { kind: 'Completed', completion: completion(r) };
    case 6: return { kind: 'Late', correlation: r.u64() };
    case 7: return { kind: 'RouteRefreshed', invalidated: r.bool() };
    case 8: return { kind: 'Dropped', error: r.str(), message: r.str() };
    case 9: return { kind: 'Send', outbounds: r.list(() => outbound(r)) };
    case 10: return sessionDeliver(r);
    case 11: return sessionEvent(r);
    case 12: return { kind: 'PeerRefused' };
    case 13: return { kind: 'ForeignSender', connection: r.u64(), claimed: r.opt(() => r.u64()) };
    case 14: return { kind: 'Held' };
    case 15: return relocation(r);
    case 16: return { kind: 'OwnershipLost', ...key(r), reason: r.str() };
    default: throw broken('decision');
  }
}

const relocationStarted = (r) => ({
  identity: { relocation: r.u64(), ...key(r), objectGeneration: r.u64() }, send: r.list(() => outbound(r)),
});
const registration = (r) => ({ session: sessionRef(r), binding: { generation: r.u64(), token: r.u64() } });
const peerReplacement = (r) => ({ descriptor: peerDescriptor(r) });
const peerDescriptor = (r) => ({ endpoint: r.str(), rid: r.u64(), lifecycleGeneration: r.u64(), securityIdentity: r.str() });
const peerIntent = (r) => ({
  endpoint: r.str(), installed: r.opt(() => peerDescriptor(r)), liveness: r.str(),
  observedRid: r.opt(() => r.u64()), pending: r.opt(() => peerDescriptor(r)),
});

/** Counters as a plain object: `name` at the top level, `group: { name }` within a group. */
function stats(r) {
  const out = {};
  const n = r.u32();
  for (let i = 0; i < n; i++) {
    const group = r.str();
    const name = r.str();
    const value = Number(r.u64());
    if (group === '') out[name] = value;
    else (out[group] ??= {})[name] = value;
  }
  return out;
}

module.exports = {
  read, resolution, sent, sessionSent, owned, routeEnd, identity, readyRoute, inbound, completion,
  outbound, sessionRef, bindingRoute, relocationStarted, registration, peerDescriptor, peerReplacement, peerIntent, stats,
  list: (fn) => (r) => r.list(() => fn(r)),
};
