'use strict';
// The near cache's hit path piece by piece, and the ways its checks could
// be written (issue 31): what lib/near.js chose against the others, on
// the core's own shared memory (nearMemory). Not part of `make bench`:
// `node bench/near-options.js` after a build. Prints the minimum over
// rounds of ns per hit (this machine is noisy), on 1,000 hot IDs and on
// 100,000 scattered ones: the second shows what the clock reading costs
// a loop of independent lookups (clock_gettime orders the instruction
// stream, so the cache misses of one lookup no longer overlap the next's).
const { performance } = require('node:perf_hooks');
const z = require('..');
const native = require('../index.js');

const ROUNDS = 7;

function measure(name, n, f) {
  f(Math.min(n, 200_000));
  let best = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const t = process.hrtime.bigint();
    f(n);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n);
  }
  console.log(`  ${name.padEnd(62)} ${best.toFixed(1).padStart(6)} ns`);
}

async function main() {
  const store = new z.MemoryStore();
  const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store });
  const rt = new z.Runtime({ mesh: 'main', rid: 2 }, { store });
  const hotIds = Array.from({ length: 1000 }, (_, i) => `user-${i}`);
  await Promise.all(hotIds.map((id) => owner.activate('actor', id)));
  await rt.resolveMany('actor', hotIds);
  const route = rt.lookupCached('actor', hotIds[0]);
  const memory = native.nearMemory(rt.number);
  const e32 = new Int32Array(memory.epochs);
  const e64 = new BigUint64Array(memory.epochs);
  const hits64 = new BigUint64Array(memory.hits);
  const hits32 = new Uint32Array(memory.hits);
  const later = performance.now() + 3_600_000;
  let s = 0;
  let pending = 0;

  for (const [label, count] of [['1,000 hot IDs', 1000], ['100,000 scattered IDs', 100_000]]) {
    const ids = Array.from({ length: count }, (_, i) => `user-${i}`);
    const order = ids.map((_, i) => ids[(i * 7919) % count]);
    // Entries in both shapes: an object per ID (epoch as a bigint and as
    // halves), and lib/near.js's slots (typed arrays).
    const objects = new Map();
    const slots = new Map();
    const meta = new Int32Array(4 * count);
    const until = new Float64Array(count);
    const routes = [];
    ids.forEach((id, i) => {
      const at = i % 4096;
      objects.set(id, { route, at, at2: 2 * at, lo: e32[2 * at], hi: e32[2 * at + 1], epoch: e64[at], until: later });
      slots.set(id, i);
      meta.set([2 * at, e32[2 * at], e32[2 * at + 1]], 4 * i);
      until[i] = later;
      routes.push(route);
    });
    const N = count === 1000 ? 2_000_000 : 1_000_000;
    const key = (i) => order[i % count];
    console.log(`Node ${process.version}: the near hit's parts, ${label} (min of ${ROUNDS} rounds)`);
    measure('Map.get alone', N, (n) => { for (let i = 0; i < n; i++) if (objects.get(key(i)) !== undefined) s++; });
    measure('+ epoch as bigint (one BigUint64 Atomics.load, ===)', N, (n) => {
      for (let i = 0; i < n; i++) { const e = objects.get(key(i)); if (Atomics.load(e64, e.at) === e.epoch) s++; }
    });
    measure('+ epoch split (two Int32 Atomics.load, low half first)', N, (n) => {
      for (let i = 0; i < n; i++) {
        const e = objects.get(key(i));
        if (Atomics.load(e32, e.at2) === e.lo && Atomics.load(e32, e.at2 + 1) === e.hi) s++;
      }
    });
    measure('+ epoch split, slots in typed arrays (lib/near.js)', N, (n) => {
      for (let i = 0; i < n; i++) {
        const x = slots.get(key(i));
        const at = meta[4 * x];
        if (Atomics.load(e32, at) === meta[4 * x + 1] && Atomics.load(e32, at + 1) === meta[4 * x + 2]) s++;
      }
    });
    measure('+ the same + performance.now() < expiry (the whole check)', N, (n) => {
      for (let i = 0; i < n; i++) {
        const x = slots.get(key(i));
        const at = meta[4 * x];
        if (Atomics.load(e32, at) === meta[4 * x + 1] && Atomics.load(e32, at + 1) === meta[4 * x + 2]
          && performance.now() < until[x]) s += routes[x] === null ? 0 : 1;
      }
    });
    measure('whole check with a bigint epoch and an object per entry', N, (n) => {
      for (let i = 0; i < n; i++) {
        const e = objects.get(key(i));
        if (Atomics.load(e64, e.at) === e.epoch && performance.now() < e.until) s += e.route === null ? 0 : 1;
      }
    });
    if (count === 1000) {
      measure('rt.lookupCached (lib/near.js as built)', N, (n) => {
        for (let i = 0; i < n; i++) if (rt.lookupCached('actor', key(i)) !== null) s++;
      });
    }
  }
  console.log('Alone:');
  measure('performance.now()', 2_000_000, (n) => { for (let i = 0; i < n; i++) if (performance.now() > 0) s++; });
  measure('hit count: Atomics.add(BigUint64Array, 0, 1n)', 2_000_000, (n) => {
    for (let i = 0; i < n; i++) Atomics.add(hits64, 0, 1n);
  });
  measure('hit count: Atomics.add(Uint32Array) with a carry', 2_000_000, (n) => {
    for (let i = 0; i < n; i++) if (Atomics.add(hits32, 0, 1) === 0xffff_ffff) Atomics.add(hits32, 1, 1);
  });
  measure('hit count: a plain counter, added at stats() (lib/near.js)', 2_000_000, (n) => {
    for (let i = 0; i < n; i++) pending++;
  });
  owner.close();
  rt.close();
  if (s < 0 || pending < 0) console.log(s, pending);
}

main().catch((e) => { console.error(e); process.exit(1); });
