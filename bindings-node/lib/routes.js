'use strict';
// The reading side of the cache-hit path (src/fast.rs writes it): a hit
// crosses as a record in this module's scratch ArrayBuffer, passed to every
// lookup and read through typed-array views, so a lookup makes no Buffer
// and no string (a mesh name is decoded once per mesh). Record layout (88
// bytes, little-endian): node, objectGeneration, authorityOwnerGeneration,
// ownerLeaseGeneration, nodeGeneration, storeVersion (u64 each),
// admissionDeadlineMs (f64), state (u32: 0 miss, 1 hit), the mesh's number
// on this thread (u32), the mesh name's length (u8) and bytes. Each copy of
// this module has its own scratch and names, so copies never disturb each
// other.

const native = require('./native.js');

const RECORD = 88;
/** The most IDs one native batch call takes. */
const BATCH = 64;

const [record, batch] = native.routeLayout();
if (record !== RECORD || batch !== BATCH) {
  throw new Error(`zlink: the addon's route record (${record} bytes, ${batch} per batch) is not lib/routes.js's`);
}
/** What every lookup writes into. */
const scratch = new ArrayBuffer(RECORD * BATCH);
const bytes = Buffer.from(scratch);
const U64 = new BigUint64Array(scratch);
const F64 = new Float64Array(scratch);
const U32 = new Uint32Array(scratch);
const WORDS = RECORD / 8;
const HALVES = RECORD / 4;

/** Mesh names by their number on this thread, decoded on first sight. */
const meshes = [];

function meshOf(slot) {
  const number = U32[slot * HALVES + 15];
  let mesh = meshes[number];
  if (mesh === undefined) {
    const at = slot * RECORD + 64;
    mesh = bytes.toString('utf8', at + 1, at + 1 + bytes[at]);
    meshes[number] = mesh;
  }
  return mesh;
}

/** Record `slot`: a ReadyRoute, or null for a miss. */
function route(slot) {
  if (U32[slot * HALVES + 14] === 0) return null;
  const w = slot * WORDS;
  return {
    kind: 'ReadyRoute',
    mesh: meshOf(slot),
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

/**
 * Record `slot` as a route the near cache keeps (lib/near.js): frozen, as every later hit returns
 * this same object. Made here, apart from `route`, so that V8 allocates these long-lived routes in
 * the old generation without doing so for the short-lived ones `route` makes.
 */
function keptRoute(slot) {
  const w = slot * WORDS;
  return Object.freeze({
    kind: 'ReadyRoute',
    mesh: meshOf(slot),
    node: U64[w],
    fence: Object.freeze({
      objectGeneration: U64[w + 1],
      authorityOwnerGeneration: U64[w + 2],
      ownerLeaseGeneration: U64[w + 3],
      nodeGeneration: U64[w + 4],
      storeVersion: U64[w + 5],
    }),
    admissionDeadlineMs: F64[w + 6],
  });
}

module.exports = { route, keptRoute, scratch, BATCH };
