'use strict';
// A Runtime's near cache (issue 31): a cache hit of lookupCached,
// lookupCachedMany or resolve is answered here, without a native call,
// with the route the core last answered for that ID, while the core would
// still answer the same. The core stays the only source of truth:
// every ID of the core's table falls in one of 4,096 shards whose change
// epoch (a seqlock sequence in the core's memory, shared with this module
// as an external ArrayBuffer: src/near.rs) moves before the core removes
// or replaces an entry of that shard; a near entry keeps the epoch read
// before the core read its route and the route's expiry, and is served
// only while the epoch has not moved and the clock has not reached the
// expiry (bridge/src/near.rs states the rule). Anything else calls in and
// keeps what the core answers.
//
// The clock: under a ManualClock its word, read in place; under the
// system clock performance.now() (CLOCK_MONOTONIC, as the core's clock)
// moved onto the runtime's clock by an offset measured once, host clock
// first (so the estimate is never behind the runtime's clock), less the
// core's coarse-clock slack and a microsecond for float rounding.
//
// The epoch: two Int32 Atomics loads of its halves, low half first. Both
// halves equal mean the epoch held when the low half was read: had it
// moved it would be larger, and equal low halves with a larger value mean
// a larger high half, read after it (so no 32-bit wrap can match a stale
// epoch). A BigUint64Array load and a bigint comparison measured a little
// faster alone but allocates a bigint per hit, which costs more under a
// real heap: bench/near-options.js. (The buffers are external
// ArrayBuffers, not SharedArrayBuffers, which Node-API cannot make over
// memory of its own: the spec promises nothing about another thread's
// writes to them, but V8 performs each Atomics.load as a load of the
// memory, a builtin call it never folds or hoists; the stress test in
// test/near.test.js would see it stop doing so.)
//
// Layout: a Map per kind from ID to a slot number (a small integer, so
// a hit reads no object of its own), and per slot the route object (frozen:
// every hit returns it, so a hit allocates nothing), the epoch's word and
// halves and the expiry in typed arrays (lru-cache's layout, compact
// where a hot set's entries are). Bounded: the slots of both kinds
// together are at most the runtime's routeCacheCapacity (the oldest
// inserted goes first); close() drops them. Hits count in
// stats().cache_hits: a hit adds 1 to a plain counter here, which flush()
// adds to the core's host counter (cell 0, an Atomics.add) before anything
// reads the counters (stats(), metrics() and metricsText() call it), so
// every reading counts every near hit served before it (an Atomics.add per
// hit cost 10-15 ns more).

const { performance } = require('node:perf_hooks');
const native = require('./native.js');
const routes = require('./routes.js');

const NEAR_RECORD = 24;
const [nearRecord, nearBatch] = native.nearLayout();
if (nearRecord !== NEAR_RECORD || nearBatch !== routes.BATCH) {
  throw new Error(`zlink: the addon's near record (${nearRecord} bytes, ${nearBatch} per batch) is not lib/near.js's`);
}
/** What the near lookups write the near records into (one per copy of this module). */
const scratch = new ArrayBuffer(NEAR_RECORD * routes.BATCH);
const N32 = new Uint32Array(scratch);
const N64 = new BigUint64Array(scratch);
const HALVES = NEAR_RECORD / 4;
const WORDS = NEAR_RECORD / 8;

/** Below V8's Map size limit whatever the capacity. */
const MAX_ENTRIES = 1 << 23;
/** Taken off every expiry under the system clock: more than any float rounding of ms values. */
const ROUNDING_MS = 0.001;

const KINDS = { 1: 'spot', 2: 'actor' };

/** Slots to start with; the slot arrays double up to the capacity. */
const FIRST_SLOTS = 64;

class NearCache {
  /**
   * The near cache of native runtime `rt` (number `number`) holding at most `capacity` routes; null
   * where the engine shares no memory with the addon.
   */
  static open(rt, number, capacity) {
    const memory = native.nearMemory(number);
    return memory === null ? null : new NearCache(rt, number, memory, capacity);
  }

  constructor(rt, number, memory, capacity) {
    this.number = number;
    /** The change epochs as Int32 halves (little-endian: word i is [2i] low, [2i + 1] high). */
    this.epochs = new Int32Array(memory.epochs);
    this.hits = new BigUint64Array(memory.hits);
    /** Near hits not yet added to `hits`. */
    this.pending = 0;
    /** The manual clock's word, or null under the system clock. */
    this.manual = memory.manual === null ? null : new BigUint64Array(memory.manual);
    this.slackNs = BigInt(memory.slackNs);
    /** ID -> slot, per kind. */
    this.spot = new Map();
    this.actor = new Map();
    this.limit = Math.min(capacity, MAX_ENTRIES);
    // Per slot: the route; the epoch's half index (2 * shard), low and
    // high halves (`meta`, 4 per slot); the expiry: ms on the host clock
    // (`until`), or ns (bigint) on the manual clock (`untilNs`).
    this.routes = [];
    this.meta = new Int32Array(4 * FIRST_SLOTS);
    this.until = new Float64Array(FIRST_SLOTS);
    this.untilNs = [];
    /** Slots freed, to use again; `used` slots were ever used. */
    this.free = [];
    this.used = 0;
    // performance.now() + offsetMs is never behind the runtime's clock:
    // the host clock is read first.
    let offset = -Infinity;
    for (let i = 0; i < 3; i++) {
      const host = performance.now();
      offset = Math.max(offset, host - Number(rt.now()) / 1e6);
    }
    this.offsetMs = offset;
  }

  /** The map of kind name `kind`, or undefined for a name that is not one. */
  mapOf(kind) {
    return kind === 'actor' ? this.actor : kind === 'spot' ? this.spot : undefined;
  }

  /** The clock now, as the slots' expiries are: ms (host clock), or ns (manual word, bigint). */
  now() {
    return this.manual === null ? performance.now() : Atomics.load(this.manual, 0);
  }

  /** Whether slot `s` may be served at clock reading `now`. */
  holds(s, now) {
    const m = this.meta;
    const at = m[4 * s];
    return Atomics.load(this.epochs, at) === m[4 * s + 1] && Atomics.load(this.epochs, at + 1) === m[4 * s + 2]
      && (this.manual === null ? now < this.until[s] : now < this.untilNs[s]);
  }

  /** The route of `id` (kind name `kind`) kept and still the core's, or undefined. */
  get(kind, id) {
    const map = kind === 'actor' ? this.actor : kind === 'spot' ? this.spot : undefined;
    if (map === undefined) return undefined;
    const s = map.get(id);
    if (s === undefined || !this.holds(s, this.now())) return undefined;
    this.pending++;
    return this.routes[s];
  }

  /** Adds the near hits served so far to the core's counter (before the counters are read). */
  flush() {
    if (this.pending > 0) {
      Atomics.add(this.hits, 0, BigInt(this.pending));
      this.pending = 0;
    }
  }

  /** Asks the core for `id` (checked; kind code `code`): its route or null, kept when it may be. */
  fetch(code, id) {
    native.lookupNear(this.number, code, id, routes.scratch, scratch);
    return this.keep(this[KINDS[code]], id, 0);
  }

  /** Asks the core for `ids` (at most BATCH, checked): route i into `out[at[i]]`, kept when it may be. */
  fetchMany(code, ids, out, at) {
    native.lookupNearMany(this.number, code, ids, routes.scratch, scratch);
    const map = this[KINDS[code]];
    for (let i = 0; i < ids.length; i++) out[at[i]] = this.keep(map, ids[i], i);
  }

  /**
   * The answer of route record `record` for `id`: kept (a frozen route, answered again while it
   * holds) when its near record says it may be, else as it is (`id` is forgotten then).
   */
  keep(map, id, record) {
    const h = record * HALVES;
    let s = map.get(id);
    if (N32[h + 5] !== 1 || this.limit === 0) {
      if (s !== undefined) this.drop(map, id, s);
      return routes.route(record);
    }
    const route = routes.keptRoute(record);
    if (s === undefined) {
      if (this.spot.size + this.actor.size >= this.limit) this.evict(map);
      s = this.take();
      map.set(id, s);
    }
    const expires = N64[record * WORDS] - this.slackNs;
    this.routes[s] = route;
    const m = this.meta;
    m[4 * s] = 2 * N32[h + 4];
    m[4 * s + 1] = N32[h + 2] | 0;
    m[4 * s + 2] = N32[h + 3] | 0;
    if (this.manual === null) this.until[s] = Number(expires) / 1e6 + this.offsetMs - ROUNDING_MS;
    else this.untilNs[s] = expires;
    return route;
  }

  /** A slot to fill: a freed one, or the next one (the arrays double when full). */
  take() {
    if (this.free.length > 0) return this.free.pop();
    const s = this.used++;
    if (s >= this.until.length) {
      const meta = new Int32Array(2 * this.meta.length);
      meta.set(this.meta);
      this.meta = meta;
      const until = new Float64Array(2 * this.until.length);
      until.set(this.until);
      this.until = until;
    }
    return s;
  }

  /** Forgets `id` of `map`, at slot `s`. */
  drop(map, id, s) {
    map.delete(id);
    this.routes[s] = undefined;
    if (this.manual !== null) this.untilNs[s] = undefined;
    this.free.push(s);
  }

  /** Drops the oldest entry: of `map`, or of the other map when `map` is empty. */
  evict(map) {
    const from = map.size > 0 ? map : map === this.actor ? this.spot : this.actor;
    const first = from.entries().next();
    if (!first.done) this.drop(from, first.value[0], first.value[1]);
  }

  /** At most `capacity` routes from now on. */
  resize(capacity) {
    this.limit = Math.min(capacity, MAX_ENTRIES);
    while (this.spot.size + this.actor.size > this.limit) this.evict(this.actor);
  }

  /** Forgets every route. */
  clear() {
    this.spot.clear();
    this.actor.clear();
    this.routes = [];
    this.untilNs = [];
    this.free = [];
    this.used = 0;
  }

  /** How many routes are kept. */
  get size() { return this.spot.size + this.actor.size; }
}

module.exports = { NearCache };
