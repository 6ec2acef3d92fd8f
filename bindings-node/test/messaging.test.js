'use strict';
// Sends, requests, replies, notices, timers and cancellation between two
// runtimes on one store and clock (the host carries the frames).
const test = require('node:test');
const assert = require('node:assert/strict');
const z = require('..');

async function world() {
  const clock = new z.ManualClock();
  const store = new z.MemoryStore({ clock });
  const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store, clock });
  const sender = new z.Runtime({ mesh: 'main', rid: 2 }, { store, clock });
  await owner.activate('actor', 'a');
  return { clock, owner, sender };
}

async function carry(owner, sent) {
  assert.equal(sent.kind, 'Submitted');
  assert.equal(sent.outbound.to.rid, 1n);
  return owner.onFrame(2, sent.outbound.bytes);
}

test('a message is delivered to the owner', async () => {
  const { owner, sender } = await world();
  const sent = await sender.send('actor', 'a', 'hi');
  const d = await carry(owner, sent);
  assert.equal(d.kind, 'Deliver');
  assert.equal(d.operation.payload.toString(), 'hi');
  assert.equal(d.operation.isRequest, false);
  assert.equal(d.operation.operationId, sent.operationId);
  assert.equal(sent.correlation, null);
});

test('a request gets its reply once; a second answer is late', async () => {
  const { owner, sender } = await world();
  const sent = await sender.request('actor', 'a', Buffer.from('ping'));
  assert.equal(typeof sent.correlation, 'bigint');
  assert.equal(sender.pendingRequests(), 1);
  const d = await carry(owner, sent);
  const back = owner.reply(d.operation, 'pong');
  const done = await sender.onFrame(1, back.bytes);
  assert.equal(done.kind, 'Completed');
  assert.equal(done.completion.correlation, sent.correlation);
  assert.equal(done.completion.outcome.kind, 'Reply');
  assert.equal(done.completion.outcome.payload.toString(), 'pong');
  assert.equal((await sender.onFrame(1, back.bytes)).kind, 'Late');
  const err = owner.replyError(d.operation, 'Handler', 7, 'nope');
  assert.equal(err.to.rid, 2n);
  assert.throws(() => owner.replyError(d.operation, 'Other', 1, ''), { code: 'UnknownErrorKind' });
});

test('requests end by timeout, cancel or shutdown', async () => {
  const { clock, sender } = await world();
  const timed = (await sender.request('actor', 'a', 'x', { timeoutMs: 1000 })).correlation;
  const cancelled = (await sender.request('actor', 'a', 'y')).correlation;
  const shut = (await sender.request('actor', 'a', 'z')).correlation;
  assert.notEqual(sender.nextDeadline(), null);
  clock.advance(1001);
  const due = await sender.onTimeout();
  assert.equal(due.length, 1);
  assert.equal(due[0].completion.correlation, timed);
  assert.equal(due[0].completion.outcome.kind, 'Timeout');
  assert.equal(sender.cancel(cancelled).outcome.kind, 'Cancelled');
  assert.equal(sender.cancel(cancelled), null);
  const rest = sender.shutdownRequests();
  assert.deepEqual(rest.map((c) => [c.correlation, c.outcome.kind]), [[shut, 'Shutdown']]);
});

test('bad frames are dropped, bad payloads refused', async () => {
  const { owner, sender } = await world();
  assert.equal((await owner.onFrame(2, Buffer.from([1, 2, 3]))).kind, 'Dropped');
  await assert.rejects(sender.send('actor', 'a', Buffer.alloc(sender.config().maxMessageBytes + 1)), { code: 'PayloadTooLarge' });
  await assert.rejects(sender.send('actor', 'a', 'x', { deadlineMs: 0 }), { code: 'ZeroDeadline' });
  await assert.rejects(sender.send('actor', 'a', 42), { code: 'NotBytes' });
  assert.equal((await sender.send('actor', 'nobody', 'x')).kind, 'NotFound');
});

test('an actor moves between runtimes; messages follow it', async () => {
  const { owner, sender } = await world();
  const state = Buffer.from('state');
  const started = owner.beginRelocation('actor', 'a', 2, 1, { state });
  assert.equal(started.send[0].to.rid, 2n);
  const restore = await sender.onFrame(1, started.send[0].bytes);
  assert.equal(restore.kind, 'Relocation');
  assert.equal(restore.event.kind, 'Restore');
  assert.equal(restore.event.state.toString(), 'state');
  let frames = sender.relocationRestored('actor', 'a');
  // Carry frames between the two until none is left.
  const nodes = { 1n: owner, 2n: sender };
  const events = [];
  while (frames.length > 0) {
    const next = [];
    for (const f of frames) {
      const from = f.to.rid === 1n ? 2 : 1;
      const d = await nodes[f.to.rid].onFrame(from, f.bytes);
      if (d.kind === 'Relocation') { events.push(d.event.kind); next.push(...d.send); }
      if (d.kind === 'Send') next.push(...d.outbounds);
    }
    frames = next;
    for (const rt of [owner, sender]) {
      for (const d of await rt.onTimeout()) {
        if (d.kind === 'Relocation') { events.push(d.event.kind); next.push(...d.send); }
      }
    }
  }
  assert.ok(events.includes('Committed'), events.join());
  assert.equal(sender.owned('actor', 'a').state, 'ready');
});
