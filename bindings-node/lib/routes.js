'use strict';
// The reading side of the cache-hit path (src/fast.rs writes it): a hit
// crosses as a record in one scratch ArrayBuffer registered once per
// JavaScript thread, read through typed-array views, so a lookup makes no
// Buffer and no string unless the route's mesh changed. Record layout
// (88 bytes, little-endian): node, objectGeneration,
// authorityOwnerGeneration, ownerLeaseGeneration, nodeGeneration,
// storeVersion (u64 each), admissionDeadlineMs (f64), state (u32: 0 miss,
// 1 hit, 2 hit with a new mesh: its length (u32) and bytes follow).

const native = require('../index.js');

const RECORD = 88;
/** The most IDs one native batch call takes. */
const BATCH = 64;

const scratch = new ArrayBuffer(RECORD * BATCH);
const bytes = Buffer.from(scratch);
const [record, batch] = native.setRouteScratch(bytes);
if (record !== RECORD || batch !== BATCH) {
  throw new Error(`zlink: the addon's route record (${record} bytes, ${batch} per batch) is not lib/routes.js's`);
}
const U64 = new BigUint64Array(scratch);
const F64 = new Float64Array(scratch);
const U32 = new Uint32Array(scratch);
const WORDS = RECORD / 8;
const HALVES = RECORD / 4;

/** The mesh of the last hit read: the addon writes a mesh only when it changes. */
let mesh = '';

/** Record `slot`: a ReadyRoute, or null for a miss. */
function route(slot) {
  const w = slot * WORDS;
  const state = U32[slot * HALVES + 14];
  if (state === 0) return null;
  if (state === 2) {
    const at = slot * RECORD + 64;
    mesh = bytes.toString('utf8', at, at + U32[slot * HALVES + 15]);
  }
  return {
    kind: 'ReadyRoute',
    mesh,
    node: U64[w],
    fence: {
      objectGeneration: U64[w + 1],
      authorityOwnerGeneration: U64[w + 2],
      ownerLeaseGeneration: U64[w + 3],
      nodeGeneration: U64[w + 4],
      storeVersion: U64[w + 5],
    },
    admissionDeadlineMs: F64[w + 6],
  };
}

module.exports = { route, BATCH };
