'use strict';
// Rough edges a user of the packed package hit: ESM named imports,
// updateConfig merging, unknown options, abort signals on send/request,
// copied Operations, JSON of bigints, detached methods, notice tokens,
// the stats type and the mesh-name cap. Each test failed before its fix
// (the mesh-name one pins behaviour that was right but undocumented).
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { getEventListeners } = require('node:events');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ts = require('typescript');
const z = require('..');

const pkg = path.join(__dirname, '..');

async function world(config) {
  const clock = new z.ManualClock();
  const store = new z.MemoryStore({ clock });
  const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store, clock, config });
  const sender = new z.Runtime({ mesh: 'main', rid: 2 }, { store, clock, config });
  await owner.activate('actor', 'a');
  return { clock, owner, sender, close: () => { owner.close(); sender.close(); } };
}

/** Sends a request (or message) from `sender` and delivers it to `owner`: the Deliver decision. */
async function deliver(owner, sender, request = true, payload = 'ping') {
  const sent = await (request ? sender.request('actor', 'a', payload) : sender.send('actor', 'a', payload));
  assert.equal(sent.kind, 'Submitted');
  const d = await owner.onFrame(2, sent.outbound.bytes);
  assert.equal(d.kind, 'Deliver');
  return { sent, d };
}

/** lib/index.d.ts's exports, as the TypeScript checker reads them. */
function declaredExports() {
  const file = path.join(pkg, 'lib', 'index.d.ts');
  const program = ts.createProgram([file], { strict: true, noEmit: true, types: ['node'] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file));
  return { checker, exports: checker.getExportsOfModule(module) };
}

/** The names lib/index.d.ts exports as values (classes, functions, consts). */
function declaredValues() {
  const { checker, exports } = declaredExports();
  return exports.filter((s) => {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    return (target.flags & ts.SymbolFlags.Value) !== 0;
  }).map((s) => s.name).sort();
}

/** A temporary project whose node_modules/zlink is this package. */
function project() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zlink-esm-'));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(pkg, path.join(dir, 'node_modules', 'zlink'), 'dir');
  return dir;
}

function node(dir, ...argv) {
  const run = spawnSync(process.execPath, argv, { cwd: dir, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

test('ESM imports every value lib/index.d.ts exports by name; the exports map resolves', (t) => {
  const dir = project();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const declared = declaredValues();
  for (const name of ['InputError', 'Runtime', 'registerMetrics', 'ZlinkError', 'AbortError', 'toJSON', 'wire']) {
    assert.ok(declared.includes(name), `${name} is declared`);
  }
  // Named imports are linked before the code runs: a missing one is a SyntaxError.
  const out = node(dir, '--input-type=module', '-e', `
    import { InputError, Runtime, registerMetrics, ZlinkError } from 'zlink';
    import * as ns from 'zlink';
    import zlink from 'zlink';
    if (!(new InputError('x', 'y') instanceof ZlinkError) || typeof registerMetrics !== 'function') process.exit(2);
    if (zlink.Runtime !== Runtime || ns.Runtime !== Runtime) process.exit(3);
    console.log(JSON.stringify(Object.keys(ns).filter((k) => k !== 'default')));`);
  const names = JSON.parse(out);
  for (const name of declared) assert.ok(names.includes(name), `${name} is importable from ESM`);
  for (const name of names) assert.ok(declared.includes(name), `${name} is declared in lib/index.d.ts`);
  // The same classes from require and import, and package.json reachable.
  const cjs = JSON.parse(node(dir, '-e', `
    const z = require('zlink');
    console.log(JSON.stringify([Object.keys(z).sort(), require('zlink/package.json').name]));`));
  assert.deepEqual(cjs, [declared, 'zlink']);
  node(dir, '--input-type=module', '-e', `
    import { createRequire } from 'node:module';
    import { InputError } from 'zlink';
    if (createRequire(import.meta.url)('zlink').InputError !== InputError) process.exit(4);`);
});

test('updateConfig merges the fields given into the config in force', async () => {
  const rt = new z.Runtime({ mesh: 'main', rid: 9 }, { config: { routeCacheMaxAge: 1000, storeAttempts: 5 } });
  rt.updateConfig({ maxFollowHops: 4 });
  assert.equal(rt.config().routeCacheMaxAge, 1000, 'a field not given keeps its value in force');
  assert.equal(rt.config().storeAttempts, 5);
  assert.equal(rt.config().maxFollowHops, 4);
  rt.updateConfig({ storeAttempts: undefined });
  assert.equal(rt.config().storeAttempts, 5, 'undefined is not given');
  const before = rt.config();
  assert.throws(() => rt.updateConfig({ routeCacheMaxAge: 2000, maxFolowHops: 3 }),
    (e) => e instanceof z.InputError && e.code === 'UnknownOption' && /maxFolowHops/.test(e.message));
  assert.throws(() => rt.updateConfig(5), { code: 'NotAnObject' });
  assert.deepEqual(rt.config(), before, 'a refused update changes nothing');
  rt.updateConfig({});
  assert.deepEqual(rt.config(), before);
  rt.close();
});

test('an unknown option key is an InputError naming it and the known ones, everywhere', async () => {
  const { owner, sender, close } = await world();
  const unknown = (key, ...known) => (e) => e instanceof z.InputError && e.code === 'UnknownOption'
    && e.message.includes(`"${key}"`) && known.every((k) => e.message.includes(k));
  await assert.rejects(sender.send('actor', 'a', 'x', { timeoutMS: 5 }), unknown('timeoutMS', 'timeoutMs', 'deadlineMs'));
  await assert.rejects(sender.request('actor', 'a', 'x', { deadline: 5 }), unknown('deadline', 'deadlineMs'));
  await assert.rejects(sender.request('actor', 'a', 'x', { origin: { spot: 's', generation: 1n } }),
    unknown('generation', 'objectGeneration'));
  assert.equal(sender.pendingRequests(), 0, 'nothing was sent');
  assert.throws(() => new z.Runtime({ mesh: 'main', rid: 3 }, { workerThread: 2 }), unknown('workerThread', 'workerThreads'));
  assert.throws(() => new z.Runtime({ mesh: 'main', rid: 3, generaton: 2 }), unknown('generaton', 'generation', 'lease'));
  assert.throws(() => new z.Runtime({ mesh: 'main', rid: 3 }, { config: { bogus: 1 } }), unknown('bogus', 'routeCacheMaxAge'));
  assert.throws(() => z.routingConfig({ bogus: 1 }), unknown('bogus', 'routeCacheMaxAge'));
  assert.throws(() => new z.MemoryStore({ clok: new z.ManualClock() }), unknown('clok', 'clock'));
  await assert.rejects(z.RedisStore.connect('redis://127.0.0.1:1', { prefx: 'x' }), unknown('prefx', 'prefix', 'writeAcks'));
  await assert.rejects(sender.resolve('actor', 'a', { singal: null }), unknown('singal', 'signal'));
  await assert.rejects(sender.resolveMany('actor', ['a'], { sigal: null }), unknown('sigal', 'signal'));
  assert.throws(() => owner.beginRelocation('actor', 'a', 2n, 1n, { save: [] }), unknown('save', 'saved', 'state'));
  assert.throws(() => z.wire.decode(Buffer.alloc(4), { maxPayload: 1 }), unknown('maxPayload', 'maxPayloadBytes'));
  // Known keys, even undefined, are fine.
  assert.equal((await sender.send('actor', 'a', 'x', { deadlineMs: undefined, signal: undefined })).kind, 'Submitted');
  close();
});

test('send and request honour an AbortSignal; every abort is a ZlinkError named AbortError', async (t) => {
  const { owner, sender, close } = await world();
  t.after(close);
  const reason = new Error('caller gave up');
  const aborted = (e) => e instanceof z.AbortError && e instanceof z.ZlinkError && e.name === 'AbortError'
    && e.code === 'Aborted' && e.cause === reason;
  const reads = sender.stats().store_reads;
  // Already aborted: rejected at once, nothing done.
  const gone = AbortSignal.abort(reason);
  await assert.rejects(sender.send('actor', 'a', 'x', { signal: gone }), aborted);
  await assert.rejects(sender.request('actor', 'a', 'x', { signal: gone }), aborted);
  await assert.rejects(sender.resolve('actor', 'cold', { signal: gone }), aborted);
  await assert.rejects(sender.resolveMany('actor', ['cold'], { signal: gone }), aborted);
  assert.equal(sender.stats().store_reads, reads, 'no store read');
  assert.equal(sender.stats().requests.sent, 0);
  assert.equal(sender.pendingRequests(), 0);
  await assert.rejects(sender.send('actor', 'a', 'x', { signal: {} }), { code: 'NotAnAbortSignal' });

  // Aborted while the request call runs: rejected at once, the request it made cancelled.
  let c = new AbortController();
  const running = sender.request('actor', 'a', 'x', { signal: c.signal });
  c.abort(reason);
  await assert.rejects(running, aborted);
  // The cancel follows once the call's result is known.
  for (let i = 0; i < 400 && sender.stats().requests.cancelled === 0; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(sender.stats().requests.sent, 1);
  assert.equal(sender.pendingRequests(), 0, 'the request made meanwhile was cancelled');
  assert.equal(sender.stats().requests.cancelled, 1);

  // Aborted while the request is pending: cancelled, as cancel(correlation) would; its reply is late.
  c = new AbortController();
  const sent = await sender.request('actor', 'a', 'y', { signal: c.signal });
  assert.equal(sender.pendingRequests(), 1);
  const d = await owner.onFrame(2, sent.outbound.bytes);
  c.abort(reason);
  assert.equal(sender.pendingRequests(), 0);
  assert.equal(sender.stats().requests.cancelled, 2);
  assert.equal(sender.cancel(sent.correlation), null, 'already ended');
  assert.equal((await sender.onFrame(1, owner.reply(d.operation, 'late').bytes)).kind, 'Late');
  assert.equal(getEventListeners(c.signal, 'abort').length, 0);

  // A signal outliving many requests keeps no listener for the ended ones (no leak, no warning).
  c = new AbortController();
  let warned = null;
  const onWarning = (w) => { warned = w; };
  process.on('warning', onWarning);
  for (let i = 0; i < 20; i++) {
    const s = await sender.request('actor', 'a', `r${i}`, { signal: c.signal });
    const delivered = await owner.onFrame(2, s.outbound.bytes);
    const done = await sender.onFrame(1, owner.reply(delivered.operation, 'ok').bytes);
    assert.equal(done.kind, 'Completed');
  }
  const cancelled = await sender.request('actor', 'a', 'c', { signal: c.signal });
  sender.cancel(cancelled.correlation);
  await sender.request('actor', 'a', 's', { signal: c.signal });
  sender.shutdownRequests();
  await new Promise((r) => setImmediate(r));
  process.off('warning', onWarning);
  assert.equal(warned, null, 'no MaxListenersExceededWarning');
  assert.equal(getEventListeners(c.signal, 'abort').length, 0, 'ended requests stop listening');
  c.abort();

  // A send (one-way) aborted while it runs rejects too; a signal never aborted changes nothing.
  c = new AbortController();
  const one = sender.send('actor', 'a', 'z', { signal: c.signal });
  c.abort(reason);
  await assert.rejects(one, aborted);
  assert.equal((await sender.send('actor', 'a', 'z', { signal: new AbortController().signal })).kind, 'Submitted');
});

test('an aborted resolve rejects with an AbortError, not a DOMException', async () => {
  const { sender, close } = await world();
  const c = new AbortController();
  const pending = sender.resolve('actor', 'cold', { signal: c.signal });
  c.abort();
  await assert.rejects(pending, (e) => e instanceof z.AbortError && e.code === 'Aborted' && e.name === 'AbortError'
    && e.cause instanceof DOMException);
  close();
});

test('a spread or a structuredClone of an Operation is taken by reply, replyError and beginRelocation', async () => {
  const { owner, sender, close } = await world();
  const { sent, d } = await deliver(owner, sender);
  assert.ok(Object.keys(d.operation).includes('frame'), 'frame is enumerable');
  const spread = { ...d.operation };
  const cloned = structuredClone(d.operation);
  assert.ok(!Buffer.isBuffer(cloned.frame) && cloned.frame instanceof Uint8Array);
  const answer = owner.reply(cloned, 'pong');
  const done = await sender.onFrame(1, answer.bytes);
  assert.equal(done.kind, 'Completed');
  assert.equal(done.completion.correlation, sent.correlation);
  assert.equal(done.completion.outcome.payload.toString(), 'pong');
  assert.equal(owner.replyError(spread, 'Handler', 1, 'no').to.rid, 2n);
  assert.equal(owner.replyError(cloned, 'Handler', 1, 'no').to.rid, 2n);
  assert.throws(() => owner.reply({ ...d.operation, frame: [1, 2] }, 'x'), { code: 'NotADelivery' });
  // A message held by the host, moved with the object as a clone.
  const { d: message } = await deliver(owner, sender, false, 'held');
  const started = owner.beginRelocation('actor', 'a', 2n, 1n, { saved: [structuredClone(message.operation)], state: 'st' });
  assert.equal(started.send[0].to.rid, 2n);
  close();
});

test('toJSON and jsonReplacer write bigints as decimal strings and bytes as base64', async () => {
  const { owner, sender, close } = await world();
  const { d } = await deliver(owner, sender, true, 'hi');
  assert.throws(() => JSON.stringify(d), TypeError, 'plain JSON.stringify throws on bigints');
  const text = JSON.stringify(d, z.jsonReplacer);
  const parsed = JSON.parse(text);
  assert.equal(parsed.operation.operationId, d.operation.operationId.toString());
  assert.equal(parsed.operation.correlation, d.operation.correlation.toString());
  assert.equal(parsed.operation.payload, Buffer.from('hi').toString('base64'));
  assert.equal(parsed.operation.frame, d.operation.frame.toString('base64'));
  assert.equal(parsed.operation.origin.rid, '2');
  assert.deepEqual(z.toJSON(d), parsed);
  assert.deepEqual(z.toJSON(structuredClone(d)), parsed, 'Uint8Arrays as Buffers');
  assert.deepEqual(z.toJSON([1n, null, 'x', 2 ** 64 * 0 + 5]), ['1', null, 'x', 5]);
  assert.equal(z.toJSON(2n ** 64n - 1n), '18446744073709551615');
  assert.equal(z.toJSON(undefined), undefined);
  assert.equal(JSON.stringify({ n: 1n, b: Buffer.from([255]) }, z.jsonReplacer, 1), '{\n "n": "1",\n "b": "/w=="\n}');
  assert.equal(BigInt.prototype.toJSON, undefined, 'nothing global is patched');
  assert.equal(typeof z.toJSON(sender.stats()).follow.relays, 'number');
  close();
});

test('a Runtime\'s methods work detached from it', async () => {
  const { owner, sender, close } = await world();
  const { lookupCached, resolve, stats, lookupCachedMany } = sender;
  const { activate, create, ownerRouteEnd } = owner;
  assert.equal(lookupCached('actor', 'a'), null);
  assert.equal((await resolve('actor', 'a')).kind, 'ReadyRoute');
  assert.equal(lookupCached('actor', 'a').node, 1n);
  assert.deepEqual(['a', 'b'].map((one) => lookupCached('actor', one) !== null), [true, false]);
  assert.equal(lookupCachedMany('actor', ['a']).length, 1);
  assert.equal(typeof stats().store_reads, 'number');
  assert.equal((await activate('actor', 'b')).state, 'ready');
  assert.equal((await create('spot', 's')).state, 'creating');
  assert.equal(ownerRouteEnd('actor', 'b').node.rid, 1n);
  const reads = await Promise.all(['a', 'b'].map((one) => sender.resolve('actor', one)).map((p) => p.then((r) => r.kind)));
  assert.deepEqual(reads, ['ReadyRoute', 'ReadyRoute']);
  assert.ok(!Object.keys(sender).includes('lookupCached'), 'bound methods are not enumerable');
  close();
  assert.throws(() => lookupCached('actor', 'a'), z.ClosedError);
});

test('a bad notice token is NotANoticeToken, not NotADelivery', async () => {
  const { owner, sender, close } = await world();
  const { d } = await deliver(owner, sender);
  const bad = (e) => e instanceof z.InputError && e.code === 'NotANoticeToken' && /notice/.test(e.message);
  assert.throws(() => owner.noticeSettled(Buffer.from('not a token'), true), bad);
  assert.throws(() => owner.noticeSettled(new Uint8Array(0), false), bad);
  assert.throws(() => owner.noticeSettled(d.operation.frame, true), bad);
  assert.throws(() => owner.noticeSettled({ outbound: null, token: Buffer.alloc(0) }, true), bad);
  assert.throws(() => owner.noticeSettled(undefined, true), bad);
  // Still a delivery error where a delivery was expected.
  assert.throws(() => owner.reply({ frame: Buffer.from('x') }, 'x'), { code: 'NotADelivery' });
  close();
});

test('stats() has every counter lib/index.d.ts types, and no other', async () => {
  const { checker, exports } = declaredExports();
  const symbol = exports.find((s) => s.name === 'Stats');
  assert.ok(symbol, 'lib/index.d.ts exports Stats');
  const shape = (type) => Object.fromEntries(checker.getPropertiesOfType(type).map((p) => {
    const t = checker.getTypeOfSymbol(p);
    return [p.name, t.flags & ts.TypeFlags.Number ? 'number' : shape(t)];
  }));
  const typed = shape(checker.getDeclaredTypeOfSymbol(symbol));
  const { sender, close } = await world();
  const actual = JSON.parse(JSON.stringify(sender.stats(), (k, v) => (typeof v === 'number' ? 'number' : v)));
  const sorted = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, typeof o[k] === 'object' ? sorted(o[k]) : o[k]]));
  assert.deepEqual(sorted(actual), sorted(typed));
  assert.equal(typeof sender.stats().follow.relays, 'number');
  close();
});

test('a mesh name is at most 23 bytes of UTF-8: a longer one is an InputError saying the cap', async () => {
  const ok = new z.Runtime({ mesh: 'm'.repeat(23), rid: 1 });
  assert.equal(ok.identity().mesh.length, 23);
  ok.close();
  const tooLong = (e) => e instanceof z.InputError && e.code === 'MeshNameTooLong' && /23-byte cap/.test(e.message);
  assert.throws(() => new z.Runtime({ mesh: 'm'.repeat(24), rid: 1 }), tooLong);
  assert.throws(() => new z.Runtime({ mesh: 'é'.repeat(12), rid: 1 }), tooLong, '12 characters, 24 bytes');
  const { owner, sender, close } = await world();
  const end = owner.ownerRouteEnd('actor', 'a');
  sender.openSession(1n);
  assert.throws(() => sender.bind(1n, 'a', { ...end, node: { ...end.node, mesh: 'm'.repeat(24) } }), tooLong);
  assert.throws(() => owner.push('a', { owner: { mesh: 'm'.repeat(24), rid: 2n, generation: 1n }, id: 1n, generation: 1n }, 'p'),
    tooLong);
  close();
});

test('beginRelocation needs the target\'s node generation: a restarted target is named with its own', async () => {
  const clock = new z.ManualClock();
  const store = new z.MemoryStore({ clock });
  const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store, clock });
  const restarted = new z.Runtime({ mesh: 'main', rid: 3, generation: 2 }, { store, clock });
  await owner.activate('actor', 'a');
  assert.throws(() => owner.beginRelocation('actor', 'a', 3n), { code: 'NotAnInteger', message: /targetGeneration/ });
  const started = owner.beginRelocation('actor', 'a', 3n, restarted.identity().generation);
  assert.equal(started.send[0].to.generation, 2n);
  await restarted.onFrame(1, started.send[0].bytes);
  const [ready] = restarted.relocationRestored('actor', 'a');
  assert.equal((await owner.onFrame(3, ready.bytes)).event.kind, 'Cutover');
  restarted.close();
  owner.close();
});
