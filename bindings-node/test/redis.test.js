'use strict';
// The binding over a real redis-server on a free loopback port.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn, execFileSync } = require('node:child_process');
const net = require('node:net');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const z = require('..');

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startRedis() {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zlink-redis-'));
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '',
    '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    try {
      if (execFileSync('redis-cli', ['-p', String(port), 'ping']).toString().includes('PONG')) break;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 25));
  }
  return { port, url: `redis://127.0.0.1:${port}`, proc, pause: () => proc.kill('SIGSTOP'), resume: () => proc.kill('SIGCONT') };
}

test('on a real redis-server', async (t) => {
  const redis = await startRedis();
  t.after(() => { redis.resume(); redis.proc.kill('SIGKILL'); });

  await t.test('1,000 concurrent resolves of one cold ID read the store once', async () => {
    const store = await z.RedisStore.connect(redis.url, { prefix: 'thousand' });
    const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store });
    const sender = new z.Runtime({ mesh: 'main', rid: 2 }, { store });
    await owner.activate('actor', 'cold');
    const all = await Promise.all(Array.from({ length: 1000 }, () => sender.resolve('actor', 'cold')));
    assert.ok(all.every((r) => r.kind === 'ReadyRoute' && r.node === 1n));
    assert.equal(sender.stats().store_reads, 1, 'one store read for 1,000 callers');
    owner.close(); sender.close();
  });

  await t.test('the event loop keeps ticking while Redis is paused', async () => {
    const store = await z.RedisStore.connect(redis.url, { prefix: 'paused' });
    const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store });
    const sender = new z.Runtime({ mesh: 'main', rid: 2 }, { store });
    await owner.activate('actor', 'a');
    redis.pause();
    let ticks = 0;
    const timer = setInterval(() => { ticks++; }, 10);
    const pending = sender.resolve('actor', 'a');
    await new Promise((r) => setTimeout(r, 300));
    const ticked = ticks;
    redis.resume();
    const r = await pending;
    clearInterval(timer);
    assert.ok(ticked >= 10, `the loop ticked ${ticked} times while the store was silent`);
    assert.equal(r.kind, 'ReadyRoute');
    owner.close(); sender.close();
  });

  await t.test('a move\'s owner CAS on a paused Redis never holds up onTimeout or the loop', async () => {
    // The cutover's owner CAS runs on the store's I/O: with the server
    // paused, the target's onTimeout resolves at once with nothing decided
    // and the loop keeps ticking; once the server is back, a later
    // onTimeout (nextDeadline says when) commits the move.
    const store = await z.RedisStore.connect(redis.url, { prefix: 'movepaused' });
    const source = new z.Runtime({ mesh: 'main', rid: 1 }, { store });
    const target = new z.Runtime({ mesh: 'main', rid: 3 }, { store });
    await source.activate('actor', 'x');
    const started = source.beginRelocation('actor', 'x', 3, 1);
    const restored = await target.onFrame(1, started.send[0].bytes);
    assert.equal(restored.kind, 'Relocation');
    const [ready] = target.relocationRestored('actor', 'x');
    const cutover = await source.onFrame(3, ready.bytes);
    assert.equal(cutover.event.kind, 'Cutover');
    redis.pause();
    let ticks = 0;
    const timer = setInterval(() => { ticks++; }, 10);
    let took;
    try {
      const due = await target.onFrame(1, cutover.send[0].bytes);
      assert.equal(due.event.kind, 'CommitDue');
      const began = Date.now();
      const first = await target.onTimeout();
      took = Date.now() - began;
      assert.deepEqual(first, [], 'nothing decided while the server is paused');
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      redis.resume();
    }
    const ticked = ticks;
    const decided = [];
    const giveUp = Date.now() + 10_000;
    while (!decided.some((d) => d.kind === 'Relocation' && d.event.kind === 'Committed')) {
      assert.ok(Date.now() < giveUp, `never committed: ${JSON.stringify(decided.map((d) => d.kind))}`);
      const at = target.nextDeadline();
      if (at !== null && at <= target.now()) decided.push(...await target.onTimeout());
      await new Promise((r) => setTimeout(r, 5));
    }
    clearInterval(timer);
    assert.ok(took < 100, `onTimeout waited ${took} ms on the paused store`);
    assert.ok(ticked >= 10, `the loop ticked ${ticked} times while the CAS waited`);
    assert.notEqual(target.owned('actor', 'x'), null);
    source.close(); target.close();
  });

  await t.test('an abort ends a resolve waiting on a silent store; libuv\'s pool stays free', async () => {
    const store = await z.RedisStore.connect(redis.url, { prefix: 'aborted', responseTimeoutMs: 5000 });
    const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store });
    const sender = new z.Runtime({ mesh: 'main', rid: 2 }, { store });
    await owner.activate('actor', 'a');
    redis.pause();
    try {
      const controller = new AbortController();
      const waiting = sender.resolve('actor', 'a', { signal: controller.signal });
      // More store calls than libuv has threads (4): they wait on the
      // runtime's own threads, so a file read (libuv's pool) still runs.
      const writes = Array.from({ length: 8 }, (_, i) => owner.activate('actor', `w${i}`));
      writes.forEach((w) => w.catch(() => {}));
      const started = Date.now();
      await fs.promises.readFile(__filename);
      assert.ok(Date.now() - started < 1000, 'libuv\'s pool is not held by store calls');
      setTimeout(() => controller.abort(new Error('gave up')), 50);
      await assert.rejects(waiting, { name: 'AbortError', code: 'Aborted', message: 'resolve was aborted: gave up' });
      assert.ok(Date.now() - started < 2000, 'the abort ended the wait before the store answered');
    } finally {
      redis.resume();
    }
    owner.close(); sender.close();
  });

  await t.test('a store with each writeAcks activates and resolves', async () => {
    // One server without replicas: no write waits for any (and primaryOnly
    // waits for none, so a zero ack timeout is allowed).
    const modes = [{}, { writeAcks: 'allReplicas', writeAckTimeoutMs: 500 }, { writeAcks: 'primaryOnly', writeAckTimeoutMs: 0 }];
    for (const [i, options] of modes.entries()) {
      const store = await z.RedisStore.connect(redis.url, { prefix: `acks${i}`, ...options });
      const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store });
      const sender = new z.Runtime({ mesh: 'main', rid: 2 }, { store });
      await owner.activate('actor', 'a');
      assert.equal((await sender.resolve('actor', 'a')).kind, 'ReadyRoute');
      owner.close(); sender.close();
    }
  });

  await t.test('writeAcks the store cannot meet reject with a coded error', async () => {
    await assert.rejects(z.RedisStore.connect(redis.url, { writeAcks: 5 }),
      (e) => e instanceof z.StoreError && e.code === 'Config' && /has 0/.test(e.message));
    // Refused before connecting: nothing listens on port 1.
    const nowhere = 'redis://127.0.0.1:1';
    for (const n of [0, -1, 2 ** 40]) {
      await assert.rejects(z.RedisStore.connect(nowhere, { writeAcks: n }),
        (e) => e instanceof z.StoreError && e.code === 'Config' && /write_acks asks for/.test(e.message));
    }
    for (const bad of ['all_replicas', 'bogus', true, {}]) {
      await assert.rejects(z.RedisStore.connect(nowhere, { writeAcks: bad }),
        (e) => e instanceof z.StoreError && e.code === 'Config' && /writeAcks must be/.test(e.message));
    }
    await assert.rejects(z.RedisStore.connect(nowhere, { writeAcks: 1.5 }), { code: 'NotAnInteger' });
    await assert.rejects(z.RedisStore.connect(nowhere, { writeAcks: NaN }), { code: 'NotAnInteger' });
    await assert.rejects(z.RedisStore.connect(nowhere, { writeAckTimeoutMs: -1 }), { code: 'Negative' });
    await assert.rejects(z.RedisStore.connect(nowhere, { writeAckTimeoutMs: 0 }),
      (e) => e instanceof z.StoreError && e.code === 'Config' && /write_ack_timeout/.test(e.message));
  });

  await t.test('an owner whose record a store recovery lost holds its work, then gives the object up', async () => {
    // The store loses x's record (as a failover to a stale replica does)
    // and every client reconnects: a new store epoch.
    const node = async (rid) => new z.Runtime({ mesh: 'main', rid },
      { store: await z.RedisStore.connect(redis.url, { prefix: 'fence', epochCheckIntervalMs: 50 }) });
    const owner = await node(1);
    const sender = await node(4);
    await owner.activate('actor', 'x');
    await owner.activate('actor', 'kept');
    const toX = await sender.send('actor', 'x', 'm');
    const toKept = await sender.send('actor', 'kept', 'm');
    execFileSync('redis-cli', ['-p', String(redis.port), 'DEL', 'fence:{actor:x}']);
    execFileSync('redis-cli', ['-p', String(redis.port), 'CLIENT', 'KILL', 'TYPE', 'normal']);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await owner.onFrame(4, toX.outbound.bytes)).kind, 'Held');
    assert.equal((await owner.onFrame(4, toKept.outbound.bytes)).kind, 'Held');
    const decided = [];
    const giveUp = Date.now() + 10_000;
    while (!decided.some((d) => d.kind === 'OwnershipLost') || !decided.some((d) => d.kind === 'Deliver')) {
      assert.ok(Date.now() < giveUp, JSON.stringify(decided.map((d) => d.kind)));
      const due = owner.nextDeadline();
      if (due !== null && due <= owner.now()) decided.push(...await owner.onTimeout());
      await new Promise((r) => setTimeout(r, 5));
    }
    const lost = decided.filter((d) => d.kind === 'OwnershipLost');
    assert.deepEqual(lost, [{ kind: 'OwnershipLost', objectKind: 'actor', id: 'x', reason: 'Missing' }]);
    assert.equal(owner.owned('actor', 'x'), null);
    assert.notEqual(owner.owned('actor', 'kept'), null);
    const refusal = decided.find((d) => d.kind === 'Reject');
    const ended = await sender.onFrame(1, refusal.outbound.bytes);
    assert.equal(ended.kind, 'Ended');
    assert.equal(ended.failure, 'Unavailable');
    owner.close(); sender.close();
  });

  await t.test('an unreachable or bad URL rejects with a coded error', async () => {
    await assert.rejects(z.RedisStore.connect('redis://127.0.0.1:1', { connectTimeoutMs: 200 }), { code: 'Unreachable' });
    await assert.rejects(z.RedisStore.connect('http://nowhere'), z.ZlinkError);
    await assert.rejects(z.RedisStore.connect(redis.url, { connectTimeoutMs: -1 }), { code: 'Negative' });
    await assert.rejects(z.RedisStore.connect(redis.url, { responseTimeoutMs: 1.5 }), { code: 'NotAnInteger' });
    await assert.rejects(z.RedisStore.connect(redis.url, { epochCheckIntervalMs: 0 }), z.StoreError);
    await assert.rejects(z.RedisStore.connect(42), { code: 'NotAString' });
  });
});
