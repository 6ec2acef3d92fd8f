'use strict';
// Regressions from a review of the Node binding: each case once gave a
// wrong route, a bare error or a blocked libuv pool.
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');
const z = require('..');

function world(config) {
  const clock = new z.ManualClock();
  const store = new z.MemoryStore({ clock });
  const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store, clock, config });
  const sender = new z.Runtime({ mesh: 'main', rid: 2 }, { store, clock, config });
  return { owner, sender, close: () => { owner.close(); sender.close(); } };
}

test('a second copy of lib/ in one thread leaves the first one right', async () => {
  const { owner, sender, close } = world();
  await owner.activate('actor', 'a');
  await sender.resolve('actor', 'a');
  const lib = path.join(__dirname, '..', 'lib');
  for (const k of Object.keys(require.cache)) if (k.startsWith(lib)) delete require.cache[k];
  const again = require('..');
  assert.notEqual(again, z, 'a fresh copy');
  assert.equal(sender.lookupCached('actor', 'nobody'), null, 'the first copy reads its own records');
  assert.equal(sender.lookupCached('actor', 'a').node, 1n);
  assert.deepEqual(sender.lookupCachedMany('actor', ['zzz', 'a']).map((r) => r && r.kind), [null, 'ReadyRoute']);
  assert.equal(again.InputError, z.InputError, 'one set of error classes per thread');
  assert.throws(() => sender.lookupCached('actor', ''), z.InputError);
  close();
});

test('an ID longer than the per-thread buffer is read whole, never cut at a character', async () => {
  const { owner, sender, close } = world({ maxObjectIdBytes: 8192 });
  for (const [short, long] of [['a'.repeat(4093), 'a'.repeat(4093) + '\u{1F600}'], ['b'.repeat(4094), 'b'.repeat(4094) + 'é']]) {
    await owner.activate('actor', short);
    await sender.resolve('actor', short);
    assert.equal(sender.lookupCached('actor', long), null, 'the longer ID is another object');
    assert.deepEqual(sender.lookupCachedMany('actor', [long]), [null]);
    assert.deepEqual(await sender.resolve('actor', long), { kind: 'Missing' });
  }
  const { sender: capped, close: closeCapped } = world();
  assert.throws(() => capped.lookupCached('actor', 'a'.repeat(4093) + '\u{1F600}'), (e) => e.code === 'ObjectIdTooLong' && /4097/.test(e.message));
  close(); closeCapped();
});

test('lookupCachedMany reads the caller\'s array once: getters and growth change nothing', async () => {
  const clock = new z.ManualClock();
  const store = new z.MemoryStore({ clock });
  const east = new z.Runtime({ mesh: 'east', rid: 1 }, { store, clock });
  const west = new z.Runtime({ mesh: 'west', rid: 2 }, { store, clock });
  const reader = new z.Runtime({ mesh: 'east', rid: 3 }, { store, clock });
  await east.activate('actor', 'e');
  await west.activate('actor', 'w');
  await reader.resolve('actor', 'e');
  await reader.resolve('actor', 'w');
  let reads = 0;
  const ids = [];
  Object.defineProperty(ids, 0, { enumerable: true, configurable: true, get() {
    if (++reads === 2) ids.push('never-activated');
    return reads === 2 ? 'a\uD800' : 'w';
  } });
  assert.deepEqual(reader.lookupCachedMany('actor', ids).map((r) => r && r.mesh), ['west']);
  assert.equal(reads, 1);
  assert.equal(reader.lookupCached('actor', 'w').mesh, 'west');
  assert.equal(reader.lookupCached('actor', 'e').mesh, 'east');
  const proxy = new Proxy(['e', 'w'], {});
  assert.deepEqual(reader.lookupCachedMany('actor', proxy).map((r) => r.mesh), ['east', 'west']);
  for (const rt of [east, west, reader]) rt.close();
});

test('names inherited from Object.prototype are not kinds or log levels', async () => {
  const { owner, close } = world();
  for (const bad of ['toString', 'constructor', '__proto__', 'valueOf']) {
    assert.throws(() => owner.lookupCached(bad, 'a'), { code: 'UnknownObjectKind' });
    await assert.rejects(owner.create(bad, 'a'), { code: 'UnknownObjectKind' });
    assert.throws(() => z.onLog(() => {}, bad), { code: 'UnknownLogLevel' });
  }
  close();
});

test('resolveMany checks its options and an aborted signal first, with one listener', async () => {
  const { owner, sender, close } = world();
  await owner.activate('actor', 'a');
  await sender.resolve('actor', 'a');
  const aborted = AbortSignal.abort(new Error('stop'));
  await assert.rejects(sender.resolveMany('actor', ['a'], { signal: aborted }),
    (e) => e instanceof z.AbortError && e.code === 'Aborted' && e.cause.message === 'stop' && /stop/.test(e.message));
  await assert.rejects(sender.resolveMany('actor', ['a'], { signal: 5 }), { code: 'NotAnAbortSignal' });
  await assert.rejects(sender.resolveMany('actor', ['a'], 'opts'), { code: 'NotAnObject' });
  const controller = new AbortController();
  let warned = null;
  const onWarning = (w) => { warned = w; };
  process.on('warning', onWarning);
  const ids = Array.from({ length: 40 }, (_, i) => `miss-${i}`);
  const all = await sender.resolveMany('actor', ids, { signal: controller.signal });
  await new Promise((r) => setImmediate(r));
  process.off('warning', onWarning);
  assert.equal(all.filter((r) => r.kind === 'Missing').length, 40);
  assert.equal(warned, null, 'no MaxListenersExceededWarning');
  close();
});

test('holes in the saved operations are refused with a code', () => {
  const { owner, close } = world();
  assert.throws(() => owner.beginRelocation('actor', 'a', 2n, 1n, { saved: [, ] }), { code: 'NotADelivery' }); // eslint-disable-line no-sparse-arrays
  close();
});

test('connecting to Redis leaves libuv\'s pool free', async () => {
  const silent = net.createServer(() => {}).listen(0, '127.0.0.1');
  await new Promise((r) => silent.once('listening', r));
  const url = `redis://127.0.0.1:${silent.address().port}`;
  const connects = Array.from({ length: 6 }, () =>
    z.RedisStore.connect(url, { connectTimeoutMs: 1500, responseTimeoutMs: 1500 }).catch((e) => e));
  const started = Date.now();
  await fs.promises.readFile(__filename);
  assert.ok(Date.now() - started < 1000, 'a file read is not queued behind the connects');
  for (const e of await Promise.all(connects)) assert.ok(e instanceof z.StoreError, String(e));
  silent.close();
});

test('close stops the runtime\'s threads at once, not when it is collected', async () => {
  const named = (prefix) => fs.readdirSync('/proc/self/task')
    .filter((t) => { try { return fs.readFileSync(`/proc/self/task/${t}/comm`, 'utf8').startsWith(prefix); } catch { return false; } })
    .length;
  const rt = new z.Runtime({ mesh: 'main', rid: 77 }, { workerThreads: 3 });
  await rt.activate('actor', 'a');
  // A new thread takes its name once it runs.
  let before = named('zlink-store');
  for (let i = 0; i < 200 && before < 3; i++) {
    await new Promise((r) => setTimeout(r, 10));
    before = named('zlink-store');
  }
  assert.ok(before >= 3, `the runtime's store threads: ${before}`);
  rt.close();
  let after = before;
  for (let i = 0; i < 200 && after > before - 3; i++) {
    await new Promise((r) => setTimeout(r, 10));
    after = named('zlink-store');
  }
  assert.ok(after <= before - 3, `${before} store threads before close, ${after} after`);
});
