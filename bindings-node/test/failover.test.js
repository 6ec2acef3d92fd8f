'use strict';
// Issue 27's scenario through the binding, on a real Redis Sentinel group
// and a real Redis Cluster with replicas (core/tests/redis_failover.rs,
// a_write_no_replica_acknowledged_is_never_acted_on): A's activation
// reaches no replica, so A never acts on it; after the failover lost it,
// B owns the object alone. The Redis side is the zlink-failover kit
// (testkit/src/bin/zlink-failover.rs), driven one line at a time over
// stdin/stdout; scripts/test.sh builds it and names it in
// ZLINK_FAILOVER_KIT.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const readline = require('node:readline');
const fs = require('node:fs');
const path = require('node:path');
const z = require('..');

const root = path.resolve(__dirname, '..', '..');
const kitPath = process.env.ZLINK_FAILOVER_KIT || path.join(root, 'target', 'debug', 'zlink-failover');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The kit running `deployment`: `command(line)` answers its one line. */
async function startKit(deployment) {
  const proc = spawn(kitPath, [deployment], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  const lines = [];
  const waiting = [];
  let ended = false;
  const wake = () => { while (waiting.length > 0) waiting.shift()(); };
  readline.createInterface({ input: proc.stdout }).on('line', (l) => { lines.push(l); wake(); })
    .on('close', () => { ended = true; wake(); });
  proc.on('error', (e) => { stderr += String(e); ended = true; wake(); });

  async function line(what, ms) {
    const giveUp = Date.now() + ms;
    while (lines.length === 0) {
      if (ended) throw new Error(`zlink-failover ended before ${what}; its stderr: ${stderr}`);
      const left = giveUp - Date.now();
      if (left <= 0) throw new Error(`zlink-failover: no answer to ${what} in ${ms} ms; its stderr: ${stderr}`);
      await new Promise((r) => {
        const timer = setTimeout(r, left);
        waiting.push(() => { clearTimeout(timer); r(); });
      });
    }
    return lines.shift();
  }

  async function command(cmd, ms) {
    proc.stdin.write(`${cmd}\n`);
    const answer = await line(cmd, ms);
    assert.match(answer, /^ok( |$)/, `zlink-failover ${cmd}: ${answer}; its stderr: ${stderr}`);
    return answer;
  }

  /** Closes its stdin (every server stops), then waits for it to exit. */
  async function stop() {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.stdin.end();
      let timer;
      const done = await Promise.race([exited, new Promise((r) => { timer = setTimeout(() => r(null), 15_000); })]);
      clearTimeout(timer);
      if (done === null) { proc.kill('SIGKILL'); await exited; }
    }
  }

  try {
    const ready = await line('start-up', 30_000);
    const m = /^ready (\S+)$/.exec(ready);
    assert.ok(m, `zlink-failover started with ${JSON.stringify(ready)}; its stderr: ${stderr}`);
    return { url: m[1], command, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * Whether `rt` delivers `bytes` from node `from`: at once, or once its held
 * work is released by onTimeout (as `delivers` in the Rust test). Also
 * returns the first answer's kind.
 */
async function delivers(rt, from, bytes) {
  const first = await rt.onFrame(from, bytes);
  if (first.kind !== 'Held') return { delivered: first.kind === 'Deliver', first: first.kind };
  const giveUp = Date.now() + 10_000;
  while (Date.now() < giveUp) {
    const due = rt.nextDeadline();
    if (due !== null && due <= rt.now()) {
      const actions = await rt.onTimeout();
      if (actions.length > 0) return { delivered: actions.some((a) => a.kind === 'Deliver'), first: 'Held' };
    }
    await sleep(5);
  }
  return { delivered: false, first: 'Held' };
}

const OPTIONS = { connectTimeoutMs: 500, responseTimeoutMs: 1000, epochCheckIntervalMs: 200, writeAckTimeoutMs: 300 };

/** Node `rid` with a store connection of its own, as each process has. */
async function node(url, rid) {
  return new z.Runtime({ mesh: 'failover', rid }, { store: await z.RedisStore.connect(url, OPTIONS) });
}

test('the zlink-failover kit is built', () => {
  assert.ok(fs.existsSync(kitPath),
    `no zlink-failover kit at ${kitPath}: build it with \`cargo build -p zlink-testkit --bin zlink-failover\` ` +
    '(scripts/test.sh does, and names it in ZLINK_FAILOVER_KIT)');
});

for (const deployment of ['sentinel', 'cluster']) {
  test(`${deployment}: a write no replica acknowledged is never acted on`, { timeout: 60_000 }, async (t) => {
    assert.ok(fs.existsSync(kitPath), `no zlink-failover kit at ${kitPath}: build it with ` +
      '`cargo build -p zlink-testkit --bin zlink-failover`');
    const kit = await startKit(deployment);
    const nodes = [];
    try {
      const [a, b, d] = [await node(kit.url, 1), await node(kit.url, 2), await node(kit.url, 4)];
      nodes.push(a, b, d);
      await kit.command('cut-off', 10_000);

      const started = Date.now();
      await assert.rejects(a.activate('actor', 'x'), (e) => e instanceof z.LifecycleError && e.code === 'Store' &&
        /not acknowledged by enough replicas \(0 of 1\): outcome unknown/.test(e.message));
      assert.ok(Date.now() - started < 5000, `unknown in bounded time: ${Date.now() - started} ms`);
      assert.equal(a.owned('actor', 'x'), null, 'the writer does not act as owner');
      // The primary holds the unacknowledged Creating record: nobody gets a
      // route from it.
      assert.deepEqual(await d.send('actor', 'x', 'm'), { kind: 'Unavailable', reason: 'Creating' });

      const answer = await kit.command('fail-over', 30_000);
      const died = Date.now() - Number(answer.split(' ')[1]);
      let owned;
      for (;;) {
        try {
          owned = await b.activate('actor', 'x');
          break;
        } catch (e) {
          if (Date.now() - died >= 20_000) throw new Error(`x not usable 20 s after the failover: ${e.message}`);
          await sleep(100);
        }
      }
      t.diagnostic(`${deployment}: promoted ${answer.split(' ')[1]} ms after the primary died; ` +
        `usable again ${Date.now() - died} ms after it died`);
      assert.equal(owned.state, 'ready');

      const toB = await d.send('actor', 'x', 'm');
      assert.equal(toB.kind, 'Submitted', JSON.stringify(toB, (_, v) => (typeof v === 'bigint' ? String(v) : v)));
      assert.equal(toB.outbound.to.rid, 2n);
      const atB = await delivers(b, 4, toB.outbound.bytes);
      t.diagnostic(`${deployment}: b first answered ${atB.first}`);
      assert.ok(atB.delivered, `b delivers the frame (first answer ${atB.first})`);
      // A never owned it: a frame for x that reaches it is not delivered.
      assert.equal(a.owned('actor', 'x'), null);
      assert.notEqual((await a.onFrame(4, toB.outbound.bytes)).kind, 'Deliver');
    } finally {
      for (const n of nodes) n.close();
      await kit.stop();
    }
  });
}
