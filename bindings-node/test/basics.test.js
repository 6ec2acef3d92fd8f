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

test('worker threads out of range and bad log callbacks are refused', () => {
  for (const n of [-1, 0, 1.5, 40000]) {
    assert.throws(() => new z.Runtime({ mesh: 'main', rid: 1 }, { workerThreads: n }), { code: 'OutOfRange' });
  }
  assert.throws(() => z.onLog(undefined), { code: 'NotAFunction' });
  assert.throws(() => z.onLog(5), { code: 'NotAFunction' });
});
