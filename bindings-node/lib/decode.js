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
  /** A tag or code no value of `what` has: the bytes were not written by this library. */
  unknown(what, c) { return broken(`unknown ${what} ${c}`); }
  named(names, c) {
    const v = names[c];
    if (v == null) throw broken(`unknown code ${c}`);
    return v;
  }
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
const { bindingRoute, inbound, nodeRef, outbound, readyRoute, routeEnd, sessionRef } = surface;
const owned = surface.ownedObject;
const fence = surface.routeFence;
const resolution = surface.resolution;
const sent = surface.sendResult;
const sessionSent = surface.sessionSendResult;
const key = (r) => ({ objectKind: r.code(codes.ObjectKind), id: r.str() });

const identity = (r) => ({ mesh: r.str(), rid: r.u64(), generation: r.u64(), lease: r.u64() });

/**
 * A delivered operation: its fields, and its frame (what the host gives
 * back). Every field is a plain enumerable one, so a spread or a
 * structuredClone of it (the frame then a Uint8Array) is still an
 * Operation `reply` and `beginRelocation` take.
 */
function operation(r) {
  const op = {
    operationId: r.u64(), ...key(r), payload: r.bytes(), origin: nodeRef(r), fence: fence(r),
    hopCount: r.u8(), objectGeneration: r.u64(), correlation: r.opt(() => r.u64()),
  };
  op.isRequest = op.correlation !== null;
  op.frame = r.bytes();
  return op;
}

// The values each host reads by hand (surface/mod.rs's `pub type`s), as
// the reader's own methods: surface.js calls them.
Reader.prototype.operation = function () { return operation(this); };
Reader.prototype.noticeToken = function () { return this.bytes(); };

const relocationStarted = (r) => ({ identity: surface.relocationIdentity(r), send: r.list(() => outbound(r)) });
const registration = (r) => ({ session: sessionRef(r), binding: surface.binding(r) });
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
  read, resolution, sent, sessionSent, owned, routeEnd, identity, readyRoute, inbound,
  outbound, sessionRef, bindingRoute, relocationStarted, registration, peerDescriptor, peerReplacement, peerIntent, stats,
  metricFamily: surface.metricFamily,
  list: (fn) => (r) => r.list(() => fn(r)),
};
