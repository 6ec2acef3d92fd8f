'use strict';
// The first slice of the Node binding: runtimes on one MemoryStore and
// ManualClock, resolution (sync cache, Promise store), lifecycle writes,
// errors with codes, close, counters.
const test = require('node:test');
const assert = require('node:assert/strict');
const z = require('..');

function pair() {
  const clock = new z.ManualClock();
  const store = new z.MemoryStore({ clock });
  const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store, clock });
  const sender = new z.Runtime({ mesh: 'main', rid: 2 }, { store, clock });
  return { clock, store, owner, sender };
}

test('an activated actor resolves to its owner, then from the cache', async () => {
  const { owner, sender } = pair();
  const made = await owner.activate('actor', 'user-42');
  assert.equal(made.state, 'ready');
  assert.equal(typeof made.objectGeneration, 'bigint');
  assert.equal(sender.lookupCached('actor', 'user-42'), null, 'cold');
  const route = await sender.resolve('actor', 'user-42');
  assert.equal(route.kind, 'ReadyRoute');
  assert.equal(route.node, 1n);
  assert.equal(route.fence.objectGeneration, made.objectGeneration);
  const reads = sender.stats().store_reads;
  assert.deepEqual(await sender.resolve('actor', 'user-42'), route);
  assert.deepEqual(sender.lookupCached('actor', 'user-42'), route);
  assert.equal(sender.stats().store_reads, reads, 'a hit reads nothing');
});

test('the four results are distinct values, never errors', async () => {
  const { clock, owner, sender } = pair();
  assert.deepEqual(await sender.resolve('spot', 'nobody'), { kind: 'Missing' });
  await owner.create('spot', 's');
  assert.deepEqual(await sender.resolve('spot', 's'), { kind: 'Unavailable', reason: 'Creating' });
  await owner.publishReady('spot', 's');
  clock.advance(owner.config().ownerLeaseDuration + 1);
  assert.deepEqual(await sender.resolve('spot', 's'), { kind: 'Unavailable', reason: 'LeaseExpired' });
});

test('bad input throws coded Error subclasses; a rejected Promise for async calls', async () => {
  const { sender } = pair();
  assert.throws(() => sender.lookupCached('actor', ''), (e) => e instanceof z.InputError && e.code === 'EmptyObjectId');
  assert.throws(() => sender.lookupCached('actor', 'x'.repeat(1025)), { code: 'ObjectIdTooLong' });
  assert.throws(() => sender.lookupCached('thing', 'a'), { code: 'UnknownObjectKind' });
  await assert.rejects(sender.resolve('actor', ''), { code: 'EmptyObjectId' });
  await assert.rejects(pair().owner.activate('actor', ''), z.InputError);
  assert.throws(() => z.routingConfig({ routeCacheMaxAge: 28_000 }),
    (e) => e instanceof z.ConfigError && e.code === 'CacheOutlivesFollow' && /5 s/.test(e.message));
  assert.throws(() => new z.Runtime({ mesh: '', rid: 1 }), { code: 'EmptyMeshName' });
  assert.throws(() => new z.Runtime({ mesh: 'main', rid: -1n }), z.ZlinkError);
});

test('a lifecycle write the store refuses rejects with a LifecycleError', async () => {
  const { owner } = pair();
  await owner.activate('actor', 'a');
  await assert.rejects(owner.activate('actor', 'a'), (e) => e instanceof z.LifecycleError && e.code === 'AlreadyExists');
});

test('calls after close throw a ClosedError; closing twice is allowed', async () => {
  const { owner } = pair();
  await owner.activate('actor', 'a');
  owner.close();
  owner.close();
  assert.equal(owner.closed, true);
  assert.throws(() => owner.lookupCached('actor', 'a'), (e) => e instanceof z.ClosedError && e.code === 'Closed');
  await assert.rejects(owner.resolve('actor', 'b'), z.ClosedError);
});

test('an aborted resolve rejects; the runtime keeps working', async () => {
  const { owner, sender } = pair();
  await owner.activate('actor', 'a');
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(sender.resolve('actor', 'cold', { signal: controller.signal }));
  assert.equal((await sender.resolve('actor', 'a')).kind, 'ReadyRoute');
});

test('config round trips through a runtime; counters are a plain object', async () => {
  const config = z.routingConfig({ routeCacheMaxAge: 0 });
  assert.equal(config.routeCacheMaxAge, 0);
  assert.equal(config.messageFollowDuration, 30_000);
  const rt = new z.Runtime({ mesh: 'main', rid: 7 }, { config: { routeCacheMaxAge: 0 } });
  assert.deepEqual(rt.config(), config);
  assert.deepEqual(rt.identity(), { mesh: 'main', rid: 7n, generation: 1n, lease: 1n });
  assert.equal(typeof rt.stats().resolutions.ready_route, 'number');
  rt.close();
});

test('every wrong argument is an InputError with a code, before the addon sees it', async () => {
  const { owner, sender } = pair();
  const input = (code) => (e) => e instanceof z.InputError && e.code === code;
  // A lone surrogate has no UTF-8 form: it would alias 'a\uFFFD'.
  assert.throws(() => sender.lookupCached('actor', 'a\uD800'), input('InvalidUtf8'));
  assert.throws(() => sender.lookupCached('actor', 42), input('NotAString'));
  assert.throws(() => new z.Runtime({ mesh: 'main', rid: 'x' }), input('NotAnInteger'));
  assert.throws(() => new z.Runtime({ mesh: 'main', rid: 1.5 }), input('NotAnInteger'));
  assert.throws(() => new z.Runtime({ mesh: 'main', rid: 1n << 64n }), input('OutOfRange'));
  assert.throws(() => new z.Runtime({ mesh: 'main', rid: 1 }, { store: {} }), input('NotAStore'));
  assert.throws(() => new z.Runtime({ mesh: 'main', rid: 1 }, { clock: {} }), input('NotAClock'));
  assert.throws(() => new z.Runtime(null), input('NotAnObject'));
  assert.throws(() => new z.MemoryStore({ tombstoneRetentionMs: -5 }), input('Negative'));
  assert.throws(() => new z.ManualClock().advance(0.5), input('NotAnInteger'));
  assert.throws(() => owner.cancel('7'), input('NotAnInteger'));
  assert.throws(() => owner.cancel(-1), input('OutOfRange'));
  assert.throws(() => owner.reply({}, 'x'), input('NotADelivery'));
  assert.throws(() => owner.openSession(1n, -2), input('OutOfRange'));
  assert.throws(() => owner.addManualPeer(undefined), input('NotAString'));
  assert.throws(() => z.wire.decode(Buffer.alloc(4), { maxPayloadBytes: -1 }), input('Negative'));
  await assert.rejects(sender.send('actor', 'a', 5), input('NotBytes'));
  await assert.rejects(sender.send('actor', 'a', 'x', { deadlineMs: -1 }), input('Negative'));
  await assert.rejects(sender.send('actor', 'a', 'x', { timeoutMs: 2.5 }), input('NotAnInteger'));
  await assert.rejects(sender.resolve('actor', 'a', { signal: {} }), input('NotAnAbortSignal'));
  await assert.rejects(sender.onFrame(-1, Buffer.alloc(8)), input('OutOfRange'));
  assert.throws(() => z.routingConfig({ routeCacheMaxAge: '5' }), (e) => e instanceof z.ConfigError && e.code === 'OutOfRange');
  assert.throws(() => z.routingConfig({ routeCacheMaxAge: 2 ** 70 }), z.ConfigError);
  owner.close(); sender.close();
});

test('a request answered with an error code out of range is refused', async () => {
  const { owner, sender } = pair();
  await owner.activate('actor', 'a');
  const sent = await sender.request('actor', 'a', 'ping');
  const delivered = await owner.onFrame(2n, sent.outbound.bytes);
  assert.equal(delivered.kind, 'Deliver');
  assert.throws(() => owner.replyError(delivered.operation, 'Handler', 2 ** 32), { code: 'OutOfRange' });
  assert.throws(() => owner.replyError(delivered.operation, 'Handler', -1), { code: 'OutOfRange' });
  const answer = owner.replyError(delivered.operation, 'Handler', 2 ** 32 - 1, 'no');
  const done = await sender.onFrame(1n, answer.bytes);
  assert.equal(done.completion.outcome.code, 2 ** 32 - 1);
  owner.close(); sender.close();
});

test('updateConfig replaces the config in force; a broken one changes nothing', () => {
  const rt = new z.Runtime({ mesh: 'main', rid: 9 });
  rt.updateConfig({ routeCacheMaxAge: 1000 });
  assert.equal(rt.config().routeCacheMaxAge, 1000);
  assert.throws(() => rt.updateConfig({ routeCacheMaxAge: 28_000 }), { code: 'CacheOutlivesFollow' });
  assert.equal(rt.config().routeCacheMaxAge, 1000);
  rt.close();
  assert.throws(() => rt.updateConfig({}), z.ClosedError);
});

test('a store call made just before close settles (a ClosedError or its result), never hangs', async () => {
  for (let i = 0; i < 50; i++) {
    const { owner } = pair();
    const calls = [owner.activate('actor', `a${i}`), owner.send('actor', 'x', 'p'), owner.resolve('actor', 'y')];
    owner.close();
    for (const settled of await Promise.allSettled(calls)) {
      assert.ok(settled.status === 'fulfilled' || settled.reason instanceof z.ClosedError, String(settled.reason));
    }
  }
});

test('batch lookups give what single lookups give, in order, any count', async () => {
  const { owner, sender } = pair();
  const ids = Array.from({ length: 150 }, (_, i) => `b${i}`);
  for (const id of ids.filter((_, i) => i % 3 !== 0)) await owner.activate('actor', id);
  for (const id of ids) await sender.resolve('actor', id);
  const many = sender.lookupCachedMany('actor', ids);
  assert.equal(many.length, 150);
  ids.forEach((id, i) => assert.deepEqual(many[i], sender.lookupCached('actor', id), id));
  assert.equal(many.filter((r) => r === null).length, 50, 'the never-activated ones miss');
  assert.deepEqual(sender.lookupCachedMany('actor', []), []);
  const resolved = await sender.resolveMany('actor', ids);
  ids.forEach((id, i) => assert.equal(resolved[i].kind, i % 3 === 0 ? 'Missing' : 'ReadyRoute', id));
  assert.throws(() => sender.lookupCachedMany('actor', ['a', 5]), { code: 'NotAString' });
  assert.throws(() => sender.lookupCachedMany('actor', 'a'), { code: 'NotAnArray' });
  assert.throws(() => sender.lookupCachedMany('actor', ['ok', '']), { code: 'EmptyObjectId' });
  // A failed batch leaves the next hit right (its mesh is written again).
  assert.equal(sender.lookupCached('actor', 'b1').mesh, 'main');
  owner.close(); sender.close();
  assert.throws(() => sender.lookupCachedMany('actor', ['b1']), z.ClosedError);
});

test('routes of runtimes in different meshes keep their mesh, however interleaved', async () => {
  const clock = new z.ManualClock();
  const store = new z.MemoryStore({ clock });
  const owners = [new z.Runtime({ mesh: 'east', rid: 1 }, { store, clock }), new z.Runtime({ mesh: 'west', rid: 2 }, { store, clock })];
  await owners[0].activate('actor', 'e');
  await owners[1].activate('actor', 'w');
  const reader = new z.Runtime({ mesh: 'east', rid: 3 }, { store, clock });
  await reader.resolve('actor', 'e');
  await reader.resolve('actor', 'w');
  for (let i = 0; i < 5; i++) {
    assert.equal(reader.lookupCached('actor', 'e').mesh, 'east');
    assert.equal(reader.lookupCached('actor', 'w').mesh, 'west');
    assert.equal(reader.lookupCached('actor', 'w').mesh, 'west');
    assert.deepEqual(reader.lookupCachedMany('actor', ['w', 'e', 'e', 'w']).map((r) => r.mesh), ['west', 'east', 'east', 'west']);
  }
  for (const rt of [...owners, reader]) rt.close();
});

test('the cache-hit functions refuse a number that is not a live runtime', () => {
  const native = require('../index.js');
  const rt = new z.Runtime({ mesh: 'main', rid: 1 });
  const { scratch } = require('../lib/routes.js');
  for (const bad of [rt.number + 1, -1, 0.5, 2 ** 60, NaN]) {
    assert.throws(() => native.lookupRoute(bad, 2, 'a', scratch), { code: 'InvalidHandle' }, String(bad));
  }
  assert.throws(() => native.lookupRoute(rt.number, 2, 'a'), /4 arguments/);
  assert.throws(() => native.lookupRoute(rt.number, 2, 5, scratch), /string/);
  assert.throws(() => native.lookupRoute(rt.number, 2, 'a', new ArrayBuffer(8)), /aligned bytes/);
  assert.throws(() => native.lookupRoute(rt.number, 2, 'a', {}), /ArrayBuffer/);
  const detached = new ArrayBuffer(scratch.byteLength);
  structuredClone(detached, { transfer: [detached] });
  assert.throws(() => native.lookupRoute(rt.number, 2, 'a', detached), /aligned bytes/, 'a detached buffer is never written');
  assert.throws(() => native.lookupRoutes(rt.number, 2, new Array(65).fill('a'), scratch), /at most 64/);
  rt.close();
});

test('worker threads out of range and bad log callbacks are refused', () => {
  for (const n of [-1, 0, 1.5, 40000]) {
    assert.throws(() => new z.Runtime({ mesh: 'main', rid: 1 }, { workerThreads: n }), { code: 'OutOfRange' });
  }
  assert.throws(() => z.onLog(undefined), { code: 'NotAFunction' });
  assert.throws(() => z.onLog(5), { code: 'NotAFunction' });
});

test('a worker thread has its own runtimes and cache-hit path', async () => {
  const { Worker } = require('node:worker_threads');
  const code = `
    const z = require(${JSON.stringify(require.resolve('..'))});
    const { parentPort } = require('node:worker_threads');
    (async () => {
      const store = new z.MemoryStore();
      const owner = new z.Runtime({ mesh: 'worker', rid: 1 }, { store });
      await owner.activate('actor', 'w');
      const r = await owner.resolve('actor', 'w');
      parentPort.postMessage([r.mesh, String(r.node), owner.lookupCachedMany('actor', ['w', 'x']).map((x) => x && x.mesh)]);
      owner.close();
    })();`;
  const main = new z.Runtime({ mesh: 'main', rid: 9 });
  await main.activate('actor', 'm');
  await main.resolve('actor', 'm');
  const got = await new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true });
    w.once('message', resolve);
    w.once('error', reject);
  });
  assert.deepEqual(got, ['worker', '1', ['worker', null]]);
  assert.equal(main.lookupCached('actor', 'm').mesh, 'main', 'this thread\'s path is untouched');
  main.close();
});
