'use strict';
// make bench: zlink's Node cache-hit path against lru-cache `get`, in one
// run (tinybench), on 100,000 IDs visited in a scattered order. Each task
// does LOOP lookups per iteration so the harness's own cost per iteration
// is spread thin; figures are ns per lookup (per ID for batches). Prints
// the figures and the ratios the issue asks for, and appends the two held
// to a target to $ZLINK_BENCH_OUT when set. Never fails on a timing.
const fs = require('node:fs');
const { Bench } = require('tinybench');
const { LRUCache } = require('lru-cache');
const z = require('..');
const native = require('../index.js');
const { scratch } = require('../lib/routes.js');

const N = 100_000;
const LOOP = 1024;
const BATCH = 64;

async function main() {
  const store = new z.MemoryStore();
  // Routes that stay cached for the whole run (the defaults expire them
  // after 15 s, and later tasks would measure misses).
  const hour = 3_600_000;
  const config = {
    routeCacheCapacity: 2 * N, routeCacheMaxAge: hour, messageFollowDuration: 2 * hour, ownerLeaseDuration: 2 * hour,
  };
  const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store, config });
  const rt = new z.Runtime({ mesh: 'main', rid: 2 }, { store, config });
  const ids = Array.from({ length: N }, (_, i) => `user-${i}`);
  for (let i = 0; i < N; i += 1000) {
    await Promise.all(ids.slice(i, i + 1000).map((id) => owner.activate('actor', id)));
    await Promise.all(ids.slice(i, i + 1000).map((id) => rt.resolve('actor', id)));
  }
  const lru = new LRUCache({ max: 2 * N });
  // lru-cache holds copies made here, not the objects lookupCached
  // returned: 100k of those kept alive make V8 pretenure lookupCached's
  // allocation site, and every later route is then allocated in the old
  // generation (the single call measured 600 ns instead of 370 in the same
  // run). An application that keeps the routes it gets pays that too.
  for (const id of ids) {
    const r = rt.lookupCached('actor', id);
    lru.set(id, { ...r, fence: { ...r.fence } });
  }
  // A scattered order (a stride prime to N), the same for every task.
  const order = ids.map((_, i) => ids[(i * 7919) % N]);
  const batches = [];
  for (let i = 0; i + BATCH <= N; i += BATCH) batches.push(order.slice(i, i + BATCH));
  if (rt.lookupCachedMany('actor', batches[0]).some((r) => r === null)) throw new Error('not all cached');

  let at = 0;
  const next = () => { at = (at + 1) % N; return order[at]; };
  let b = 0;
  const nextBatch = () => { b = (b + 1) % batches.length; return batches[b]; };
  let sink = 0;
  const bench = new Bench({ time: 1500, warmupTime: 300 });
  bench
    .add('lru-cache get', () => { for (let i = 0; i < LOOP; i++) if (lru.get(next()) !== undefined) sink++; })
    .add('empty napi call, String id', () => { for (let i = 0; i < LOOP; i++) native.emptyStringCall(2, next()); })
    .add('empty napi call, id as lookupCached reads it', () => {
      for (let i = 0; i < LOOP; i++) native.emptyCall(rt.number, 2, next(), scratch);
    })
    .add('lookupCached (single call)', () => {
      for (let i = 0; i < LOOP; i++) if (rt.lookupCached('actor', next()) !== null) sink++;
    })
    .add('resolve (single call, awaited)', async () => {
      for (let i = 0; i < LOOP; i++) if ((await rt.resolve('actor', next())).kind === 'ReadyRoute') sink++;
    })
    .add('lookupCachedMany, 64 ids', () => {
      for (let i = 0; i < LOOP / BATCH; i++) sink += rt.lookupCachedMany('actor', nextBatch()).length;
    })
    .add('resolveMany, 64 ids (awaited)', async () => {
      for (let i = 0; i < LOOP / BATCH; i++) sink += (await rt.resolveMany('actor', nextBatch())).length;
    });
  const reads = rt.stats().store_reads;
  await bench.run();
  if (rt.stats().store_reads !== reads) throw new Error('a measured lookup missed the cache');

  // The median: a route is a fresh object (the API's values are plain
  // objects), so the mean also carries the young-generation collections
  // those objects cause, which lru-cache's stored values never do.
  const ns = {};
  const mean = {};
  for (const task of bench.tasks) {
    ns[task.name] = (task.result.latency.p50 * 1e6) / LOOP;
    mean[task.name] = (task.result.latency.mean * 1e6) / LOOP;
  }
  const rows = Object.entries(ns).map(([name, v]) =>
    `  ${name.padEnd(46)} ${v.toFixed(1).padStart(8)} ns  (mean ${mean[name].toFixed(1)})`);
  const ratio = (a, c) => ns[a] / ns[c];
  const figures = {
    single_vs_empty_string: ratio('lookupCached (single call)', 'empty napi call, String id'),
    single_vs_empty_same_read: ratio('lookupCached (single call)', 'empty napi call, id as lookupCached reads it'),
    batch_per_id_vs_lru: ratio('lookupCachedMany, 64 ids', 'lru-cache get'),
    resolve_batch_per_id_vs_lru: ratio('resolveMany, 64 ids (awaited)', 'lru-cache get'),
    single_vs_lru: ratio('lookupCached (single call)', 'lru-cache get'),
  };
  console.log(`Node ${process.version}: cache hits on ${N} IDs, scattered order; median ns per lookup (per ID in a batch)`);
  console.log(rows.join('\n'));
  console.log('ratios (targets: single <= 1.3x the empty call; batch per id <= 1.5x lru-cache):');
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k.padEnd(30)} ${v.toFixed(2)}x`);
  // The summary `make bench` ends with (scripts/bench-summary.py).
  const record = (figure, task, ratio, vs, target, met) => {
    if (!process.env.ZLINK_BENCH_OUT) return;
    const line = { bench: 'node', figure, value: ns[task], unit: 'ns', ratio, vs, target, met };
    fs.appendFileSync(process.env.ZLINK_BENCH_OUT, `${JSON.stringify(line)}\n`);
  };
  const single = 'lookupCached (single call)';
  const batch = 'lookupCachedMany, 64 ids';
  record('lookupCached, single call', single, figures.single_vs_empty_string, 'empty napi call (String id)',
    '<= 1.3x', figures.single_vs_empty_string <= 1.3);
  record('lookupCachedMany, per id of 64', batch, figures.batch_per_id_vs_lru, 'lru-cache get', '<= 1.5x',
    figures.batch_per_id_vs_lru <= 1.5);
  owner.close();
  rt.close();
  if (sink < 0) console.log(sink);
}

main().catch((e) => { console.error(e); process.exit(1); });
