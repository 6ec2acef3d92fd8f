'use strict';
// The near cache (lib/near.js, issue 31): a cache hit of lookupCached,
// lookupCachedMany and resolve answered in JavaScript, never once the core
// would refuse the route. A near hit returns the very object an earlier
// call returned (a native answer is always a new object), so these tests
// tell near hits from native answers by identity, and compare them with
// the core's own answer read without the near cache (`coreAnswer`).
const test = require('node:test');
const assert = require('node:assert/strict');
const { isDeepStrictEqual } = require('node:util');
const { performance } = require('node:perf_hooks');
const z = require('..');
const native = require('../index.js');
const routes = require('../lib/routes.js');
const { NearCache } = require('../lib/near.js');

const CODES = { spot: 1, actor: 2 };
const LONG_LEASE = 36_000_000;

/** The core's answer for `id` now, read without the near cache. */
function coreAnswer(rt, kind, id) {
  native.lookupRoute(rt.number, CODES[kind], id, routes.scratch);
  return routes.route(0);
}

/** A store, a manual clock, and runtimes `rids` on them. */
function world(rids, config = {}) {
  const clock = new z.ManualClock();
  const store = new z.MemoryStore({ clock });
  const nodes = {};
  for (const rid of rids) {
    nodes[rid] = new z.Runtime({ mesh: 'main', rid }, { store, clock, config: { ownerLeaseDuration: LONG_LEASE, ...config } });
  }
  return { clock, store, nodes, close: () => Object.values(nodes).forEach((rt) => rt.close()) };
}

/** The route `rt` keeps near for `id`: two lookups give one object, the core's answer. */
function kept(rt, id, kind = 'actor') {
  const r = rt.lookupCached(kind, id);
  assert.notEqual(r, null, `${id} is cached`);
  assert.equal(rt.lookupCached(kind, id), r, `${id} is answered by the near cache`);
  assert.deepStrictEqual(r, coreAnswer(rt, kind, id));
  return r;
}

/** After a change: the next lookup is the core's new answer, not the route kept before. */
function refused(rt, id, before, kind = 'actor') {
  const now = rt.lookupCached(kind, id);
  assert.notEqual(now, before, `${id}: the route kept before the change is not served`);
  assert.deepStrictEqual(now, coreAnswer(rt, kind, id), `${id}: the core's answer`);
  return now;
}

/** Carries `frames` ([from, outbound]) between `nodes` until none is left, running due timers. */
async function carry(nodes, frames) {
  const events = [];
  while (frames.length > 0) {
    const next = [];
    for (const [from, f] of frames) {
      const to = Number(f.to.rid);
      const d = await nodes[to].onFrame(from, f.bytes);
      if (d.kind === 'Relocation') { events.push(d.event.kind); next.push(...d.send.map((o) => [to, o])); }
      if (d.kind === 'Send') next.push(...d.outbounds.map((o) => [to, o]));
    }
    for (const [rid, rt] of Object.entries(nodes)) {
      for (const d of await rt.onTimeout()) {
        if (d.kind === 'Relocation') { events.push(d.event.kind); next.push(...d.send.map((o) => [Number(rid), o])); }
      }
    }
    frames = next;
  }
  return events;
}

/** Moves actor `id` from runtime `from` to runtime `to` (both in `nodes`), frames carried. */
async function relocate(nodes, id, from, to) {
  const started = nodes[from].beginRelocation('actor', id, to, 1);
  const frames = started.send.map((o) => [from, o]);
  for (const [, f] of frames) {
    const d = await nodes[to].onFrame(from, f.bytes);
    assert.equal(d.kind, 'Relocation');
  }
  const events = await carry(nodes, nodes[to].relocationRestored('actor', id).map((o) => [to, o]));
  assert.ok(events.includes('HandedOff'), events.join());
}

test('a near hit is the core\'s answer, the same frozen object, and counts in cache_hits', async () => {
  const { nodes, close } = world([1, 2]);
  const [owner, reader] = [nodes[1], nodes[2]];
  await owner.activate('actor', 'a');
  await owner.activate('spot', 's');
  assert.equal(reader.lookupCached('actor', 'a'), null, 'cold');
  const resolved = await reader.resolve('actor', 'a');
  const r = kept(reader, 'a');
  assert.deepStrictEqual(r, resolved);
  assert.ok(Object.isFrozen(r) && Object.isFrozen(r.fence), 'a shared route cannot be changed');
  await reader.resolve('spot', 's');
  const s = kept(reader, 's', 'spot');
  assert.equal(reader.lookupCached('actor', 's'), null, 'kinds are apart');

  const hits = reader.stats().cache_hits;
  for (let i = 0; i < 10; i++) assert.equal(reader.lookupCached('actor', 'a'), r);
  assert.deepStrictEqual(reader.lookupCachedMany('actor', ['a', 'a', 'nobody']), [r, r, null]);
  assert.deepStrictEqual(reader.lookupCachedMany('spot', ['s']), [s]);
  assert.equal(await reader.resolve('actor', 'a'), r);
  assert.equal(reader.stats().cache_hits, hits + 14, 'every near hit counts');
  assert.match(reader.metricsText(), new RegExp(`^zlink_cache_hits_total ${hits + 14}$`, 'm'));

  // An ID longer than the core keeps in its table is answered by the core
  // each time (equal routes, never one object twice).
  const long = 'x'.repeat(39);
  await owner.activate('actor', long);
  await reader.resolve('actor', long);
  const first = reader.lookupCached('actor', long);
  const second = reader.lookupCached('actor', long);
  assert.notEqual(first, null);
  assert.notEqual(first, second);
  assert.deepStrictEqual(second, coreAnswer(reader, 'actor', long));
  assert.deepStrictEqual(reader.lookupCachedMany('actor', [long, 'a']), [first, r]);

  // Wrong arguments are refused as before, hit or not.
  assert.throws(() => reader.lookupCached('thing', 'a'), { code: 'UnknownObjectKind' });
  assert.throws(() => reader.lookupCached('actor', 42), { code: 'NotAString' });
  assert.throws(() => reader.lookupCachedMany('actor', ['a', '']), { code: 'EmptyObjectId' });
  close();
  assert.throws(() => reader.lookupCached('actor', 'a'), (e) => e instanceof z.ClosedError && e.code === 'Closed');
  assert.throws(() => reader.lookupCachedMany('actor', ['a']), z.ClosedError);
  await assert.rejects(reader.resolve('actor', 'a'), z.ClosedError);
});

test('expiry on the manual clock: served until the instant the core stops, not after', async () => {
  const { clock, nodes, close } = world([1, 2]);
  const [owner, reader] = [nodes[1], nodes[2]];
  await owner.activate('actor', 'a');
  await reader.resolve('actor', 'a');
  const r = kept(reader, 'a');
  const maxAge = reader.config().routeCacheMaxAge;
  clock.advance(maxAge - 1);
  assert.equal(reader.lookupCached('actor', 'a'), r, 'still live 1 ms before its expiry');
  clock.advance(1);
  assert.equal(refused(reader, 'a', r), null, 'expired');
  close();
});

test('a relay notice, a relocation, a rejection, a store recovery, an ended lease and a new config each make the next lookup ask the core', async () => {
  const { nodes, close } = world([1, 2, 3]);
  const [a, b, c] = [nodes[1], nodes[2], nodes[3]];
  for (const id of ['n', 'm', 'r', 's', 'l']) await a.activate('actor', id);
  for (const id of ['n', 'm', 'r', 's', 'l']) await b.resolve('actor', id);
  await c.resolve('actor', 'm');

  // A relay notice: 'n' moved from a to c; b's message to a is relayed and
  // its notice drops b's route.
  let before = kept(b, 'n');
  await relocate(nodes, 'n', 1, 3);
  assert.equal(b.lookupCached('actor', 'n'), before, 'a move alone changes nothing b was told');
  const sent = await b.send('actor', 'n', 'x');
  assert.equal(sent.outbound.to.rid, 1n);
  const relay = await a.onFrame(2, sent.outbound.bytes);
  assert.equal(relay.kind, 'Relay');
  assert.equal((await b.onFrame(1, relay.notice.outbound.bytes)).kind, 'RouteRefreshed');
  a.noticeSettled(relay.notice.token, true);
  refused(b, 'n', before);
  await b.resolve('actor', 'n');
  assert.equal(kept(b, 'n').node, 3n, 'the new route, kept near again');

  // A relocation: c held a route to 'm' at a; once 'm' is handed off to c,
  // c's core drops that route.
  before = kept(c, 'm');
  await relocate(nodes, 'm', 1, 3);
  refused(c, 'm', before);

  // A rejection: 'r' released at a and activated at c; a rejects b's message.
  before = kept(b, 'r');
  await a.beginRelease('actor', 'r');
  await a.completeRelease('actor', 'r');
  await c.activate('actor', 'r');
  assert.equal(b.lookupCached('actor', 'r'), before);
  const stale = await b.send('actor', 'r', 'x');
  const reject = await a.onFrame(2, stale.outbound.bytes);
  assert.equal(reject.kind, 'Reject');
  assert.equal((await b.onFrame(1, reject.outbound.bytes)).kind, 'Ended');
  refused(b, 'r', before);
  await b.resolve('actor', 'r');
  assert.equal(kept(b, 'r').node, 3n);

  // A store recovery clears the cache.
  before = kept(b, 's');
  assert.ok(b.onStoreRecovery() > 0);
  refused(b, 's', before);

  // An owner lease ended: its routes go.
  await b.resolve('actor', 'l');
  before = kept(b, 'l');
  assert.ok(b.onOwnerLeaseInvalidated(1, 1) > 0);
  refused(b, 'l', before);

  // A new config: the near cache starts over (the core keeps its routes).
  // ('r' is c's: a's routes are not cached once its lease ended.)
  await b.resolve('actor', 'r');
  before = kept(b, 'r');
  b.updateConfig({ routeCacheCapacity: 10 });
  const again = b.lookupCached('actor', 'r');
  assert.notEqual(again, before);
  assert.deepStrictEqual(again, before);
  assert.equal(b.lookupCached('actor', 'r'), again);
  close();
});

test('the near cache holds at most its capacity, the oldest first out; a full core evicts too', async () => {
  const { nodes, close } = world([1, 2, 3]);
  const [owner, reader, small] = [nodes[1], nodes[2], nodes[3]];
  const ids = Array.from({ length: 20 }, (_, i) => `c${i}`);
  for (const id of ids) await owner.activate('actor', id);
  await reader.resolveMany('actor', ids);
  const near = NearCache.open(reader.native, reader.number, 8);
  for (const id of ids) assert.notEqual(near.fetch(2, id), null);
  assert.equal(near.size, 8);
  assert.equal(near.get('actor', 'c0'), undefined, 'the oldest went');
  assert.equal(near.get('actor', 'c19'), near.get('actor', 'c19'));
  near.resize(3);
  assert.equal(near.size, 3);
  assert.notEqual(near.get('actor', 'c19'), undefined);
  near.clear();
  assert.equal(near.size, 0);

  // A runtime whose core holds 8 routes: the core evicts (moving the
  // epochs), and every answer is still the core's.
  small.updateConfig({ routeCacheCapacity: 8 });
  await small.resolveMany('actor', ids);
  for (let round = 0; round < 3; round++) {
    for (const id of ids) {
      const before = coreAnswer(small, 'actor', id);
      assert.deepStrictEqual(small.lookupCached('actor', id), before, id);
    }
    await small.resolveMany('actor', ids);
  }
  close();
});

test('under the system clock a near entry stops being served before the core stops (offset and slack)', async () => {
  const store = new z.MemoryStore();
  const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store });
  const reader = new z.Runtime({ mesh: 'main', rid: 2 }, { store, config: { routeCacheMaxAge: 60 } });
  let nearHits = 0;
  let stale = 0;
  const gaps = [];
  for (let round = 0; round < 5; round++) {
    const id = `t${round}`;
    await owner.activate('actor', id);
    await reader.resolve('actor', id);
    let last = null;
    let lastNearAt = 0;
    for (;;) {
      // The core's answer first: a near hit after it refused is stale.
      const core = coreAnswer(reader, 'actor', id);
      const r = reader.lookupCached('actor', id);
      const at = performance.now();
      if (r !== null && r === last) {
        nearHits++;
        lastNearAt = at;
        if (!isDeepStrictEqual(core, r)) stale++;
      }
      last = r;
      if (core === null) {
        gaps.push(at - lastNearAt);
        break;
      }
    }
  }
  owner.close();
  reader.close();
  assert.equal(stale, 0);
  assert.ok(nearHits > 100, `near hits: ${nearHits}`);
  // The near cache stops ~10 ms (the core's coarse-clock slack) early.
  assert.ok(gaps.every((g) => g > 0), gaps.join());
  console.log(`system clock: ${nearHits} near hits; the near cache stopped ${gaps.map((g) => g.toFixed(1)).join(', ')} ms`
    + ' before the core');
});

// ---- The stress test -------------------------------------------------------

/**
 * Reads through runtime 2's near cache while its routes are invalidated
 * (relay notices, rejections after a release, store recoveries), moved
 * (relocations between runtimes 1 and 3, then resolved again) and expired
 * (the manual clock), some of it on the runtimes' threads while the reads
 * run, and evicted (the core holds 48 of 72 routes). Counts stale routes
 * served by two sound rules:
 *   A. the core's answer is read first, then lookupCached: a near hit (an
 *      object returned before) that is not the core's answer of a moment
 *      earlier was served after the core refused it (a miss of the core
 *      counts only when none of the runtime's work runs meanwhile);
 *   B. at quiet moments (no work of the runtimes pending), every route
 *      object a lookup returned that is not the core's answer then is
 *      retired; a lookup returning a retired object served a stale route.
 */
async function stress(seconds) {
  const { clock, nodes, close } = world([1, 2, 3], { routeCacheCapacity: 48 });
  const b = nodes[2];
  const maxAge = b.config().routeCacheMaxAge;
  const actors = Array.from({ length: 64 }, (_, i) => `a${i}`);
  const spots = Array.from({ length: 8 }, (_, i) => `s${i}`);
  const owner = {};
  for (const [i, id] of actors.entries()) {
    owner[id] = i % 2 === 0 ? 1 : 3;
    await nodes[owner[id]].activate('actor', id);
  }
  for (const id of spots) await nodes[1].activate('spot', id);
  const keys = [...actors.map((id) => ['actor', id]), ...spots.map((id) => ['spot', id])];

  let seed = 12345;
  const rand = (n) => {
    seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const seen = new WeakSet();
  const retired = new WeakSet();
  const live = new Map(keys.map(([, id]) => [id, new Set()]));
  const n = { reads: 0, near: 0, staleA: 0, staleB: 0, changes: {} };
  const changed = (what) => { n.changes[what] = (n.changes[what] ?? 0) + 1; };

  /** One answer `r` for `id`: counted, and checked against rule B (and A, given the core's answer first). */
  const note = (id, r, core) => {
    n.reads++;
    if (r === null) return;
    if (seen.has(r)) {
      n.near++;
      // A miss of the core is a refusal only when no work of the runtime
      // runs meanwhile: a move of its slot array (growth, a rebuild) makes
      // a concurrent read miss while the route stays (and its epoch holds).
      if (core !== undefined && !isDeepStrictEqual(core, r) && (core !== null || !busy)) n.staleA++;
    } else {
      seen.add(r);
      live.get(id).add(r);
    }
    if (retired.has(r)) n.staleB++;
  };
  const read = () => {
    const [kind, id] = keys[rand(keys.length)];
    const core = coreAnswer(b, kind, id);
    note(id, b.lookupCached(kind, id), core);
  };
  const readMany = () => {
    const kind = rand(2) === 0 ? 'actor' : 'spot';
    const pool = kind === 'actor' ? actors : spots;
    const ids = Array.from({ length: 16 }, () => pool[rand(pool.length)]);
    const cores = ids.map((id) => coreAnswer(b, kind, id));
    b.lookupCachedMany(kind, ids).forEach((r, i) => note(ids[i], r, cores[i]));
  };
  /** Reads while `pending` (work on the runtimes' threads) runs, then waits for it. */
  let busy = false;
  const readsDuring = async (pending) => {
    busy = true;
    for (let i = 0; i < 100; i++) if (i % 10 === 0) readMany(); else read();
    try {
      return await pending;
    } finally {
      busy = false;
    }
  };
  const settle = () => {
    for (const [kind, id] of keys) {
      const core = coreAnswer(b, kind, id);
      for (const r of live.get(id)) {
        if (!isDeepStrictEqual(core, r)) {
          retired.add(r);
          live.get(id).delete(r);
        }
      }
    }
  };

  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    // Routes to read: resolved on the runtime's threads while reads run.
    const some = Array.from({ length: 8 }, () => keys[rand(keys.length)]);
    await readsDuring(Promise.all(some.map(([kind, id]) => b.resolve(kind, id))));
    const id = actors[rand(actors.length)];
    const from = owner[id];
    const to = from === 1 ? 3 : 1;
    switch (rand(5)) {
      case 0: {
        // A move, then b's message to the old owner: its notice on b's
        // threads while b reads.
        await b.resolve('actor', id);
        await relocate(nodes, id, from, to);
        owner[id] = to;
        changed('relocation');
        const sent = await b.send('actor', id, 'x');
        if (sent.kind === 'Submitted' && Number(sent.outbound.to.rid) === from) {
          const relay = await nodes[from].onFrame(2, sent.outbound.bytes);
          if (relay.kind === 'Relay' && relay.notice !== null) {
            await readsDuring(b.onFrame(from, relay.notice.outbound.bytes));
            nodes[from].noticeSettled(relay.notice.token, true);
            changed('relay notice');
          }
        }
        break;
      }
      case 1: {
        // Released and activated elsewhere: b's message is rejected.
        await b.resolve('actor', id);
        await nodes[from].beginRelease('actor', id);
        await nodes[from].completeRelease('actor', id);
        await nodes[to].activate('actor', id);
        owner[id] = to;
        changed('release and reactivation');
        const sent = await b.send('actor', id, 'x');
        if (sent.kind === 'Submitted' && Number(sent.outbound.to.rid) === from) {
          const reject = await nodes[from].onFrame(2, sent.outbound.bytes);
          if (reject.kind === 'Reject') {
            await readsDuring(b.onFrame(from, reject.outbound.bytes));
            changed('rejection');
          }
        }
        break;
      }
      case 2:
        clock.advance(rand(2) === 0 ? maxAge : rand(maxAge));
        changed('clock advance');
        break;
      case 3:
        if (rand(4) === 0) {
          b.onStoreRecovery();
          changed('store recovery');
        }
        break;
      default:
        break;
    }
    for (let i = 0; i < 200; i++) if (i % 10 === 0) readMany(); else read();
    settle();
  }
  const { cache_hits: hits, cache_evictions: evictions } = b.stats();
  close();
  return { ...n, hits, evictions };
}

const STRESS_SECONDS = Number(process.env.ZLINK_NEAR_STRESS_SECONDS ?? 10);

test(`stress: ${STRESS_SECONDS} s of invalidations, moves and expiries under near-cache reads serves no stale route`,
  { timeout: (STRESS_SECONDS + 60) * 1000 }, async () => {
    const r = await stress(STRESS_SECONDS);
    console.log(`near-cache stress (${STRESS_SECONDS} s): ${r.reads} reads, ${r.near} served from the near cache, `
      + `stale: ${r.staleA} (rule A), ${r.staleB} (rule B); changes: ${JSON.stringify(r.changes)}, `
      + `evictions: ${r.evictions}, cache_hits: ${r.hits}`);
    assert.equal(r.staleA, 0, 'stale routes served (the core refused them a moment before)');
    assert.equal(r.staleB, 0, 'stale routes served (retired at a quiet moment)');
    assert.ok(r.near > 10_000, `the near cache served (${r.near})`);
    assert.ok(r.changes['relay notice'] > 0 && r.changes.rejection > 0 && r.changes['clock advance'] > 0,
      JSON.stringify(r.changes));
  });

test('the stress test fails when near entries are served without their checks', { timeout: 60_000 }, async () => {
  const holds = NearCache.prototype.holds;
  NearCache.prototype.holds = () => true;
  try {
    const r = await stress(2);
    console.log(`near-cache stress with the checks off: ${r.near} near hits, stale: ${r.staleA} (A), ${r.staleB} (B)`);
    assert.ok(r.staleA > 0 && r.staleB > 0, 'both rules catch stale routes');
  } finally {
    NearCache.prototype.holds = holds;
  }
});
