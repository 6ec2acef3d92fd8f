'use strict';
// Two Node processes on one redis-server, each a ZLinkSpotRuntime node:
// node 2 (a child process, driven over IPC) activates the Actor "counter";
// node 1 resolves it, sends it messages and requests and relays a Session's
// messages to it, and halfway through node 2 moves the Actor to node 1 while
// traffic continues. The tally must show nothing lost and nothing
// duplicated, and every request ended once. `node demo.js <redis-url>`.
const { fork } = require('node:child_process');
const z = require('zlink');
const { ZLinkSpotRuntime } = require('./spot-runtime.js');

const ACTOR = 'counter';
const MESSAGES = 300;
const SESSION_MESSAGES = 100;

async function child(url, parentPort) {
  const store = await z.RedisStore.connect(url);
  const node = new ZLinkSpotRuntime(2, store);
  node.transport.peer(1, parentPort);
  const port = await node.transport.listen();
  process.on('message', async (m) => {
    const run = (work) => node.enqueue(work).then((v) => process.send({ id: m.id, value: v ?? 'ok' }));
    if (m.cmd === 'activate') await run(() => node.activate(m.actor));
    else if (m.cmd === 'move') await run(() => node.move(m.actor, m.target));
    else if (m.cmd === 'tally') await run(() => `${node.delivered} ${node.relayed} [${[...node.actors.keys()]}] ${node.events.join(',')}`);
    else if (m.cmd === 'quit') { node.close(); process.exit(0); }
  });
  process.send({ ready: port });
}

function commander(proc) {
  let next = 0;
  const waiting = new Map();
  proc.on('message', (m) => { if (m.id !== undefined) { waiting.get(m.id)(m.value); waiting.delete(m.id); } });
  return (cmd) => new Promise((resolve) => { const id = next++; waiting.set(id, resolve); proc.send({ id, ...cmd }); });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(check, what) {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await sleep(50);
  }
  console.log(`timed out waiting: ${what}`);
}

async function parent(url) {
  const started = Date.now();
  const store = await z.RedisStore.connect(url);
  const node = new ZLinkSpotRuntime(1, store);
  const port = await node.transport.listen();
  const proc = fork(__filename, ['child', url, String(port)]);
  const ready = await new Promise((resolve) => proc.once('message', resolve));
  node.transport.peer(2, ready.ready);
  const ask = commander(proc);
  try {
    console.log(`node 2: ${await ask({ cmd: 'activate', actor: ACTOR })} (activated ${ACTOR})`);
    const route = await node.rt.resolve('actor', ACTOR);
    console.log(`node 1 resolves ${ACTOR}: ${route.kind} at node ${route.node}`);
    await node.enqueue(() => {
      node.rt.openSession(1, 1);
      node.carry(node.rt.bind(1, ACTOR, {
        owner: { mesh: route.mesh, rid: route.node, generation: route.fence.nodeGeneration },
        objectGeneration: route.fence.objectGeneration,
        authorityOwnerGeneration: route.fence.authorityOwnerGeneration,
        ownerLeaseGeneration: route.fence.ownerLeaseGeneration,
      }));
    });
    await until(() => node.rt.binding(1, ACTOR) !== null, 'the session is bound');

    const sent = [];
    const sessionSent = [];
    let requests = 0;
    for (let i = 0; i < MESSAGES; i++) {
      const request = i % 3 === 0;
      const payload = `${request ? 'q' : 'm'}${i}`;
      if (await node.enqueue(() => node.send(ACTOR, payload, request))) { sent.push(payload); if (request) requests++; }
      if (i % 3 === 1 && sessionSent.length < SESSION_MESSAGES) {
        const s = `s${i}`;
        const r = await node.enqueue(() => {
          const x = node.rt.sessionSend(1, ACTOR, s);
          if (x.kind === 'SessionSent') node.carry(x.outbound);
          return x;
        });
        if (r.kind !== 'Unavailable') sessionSent.push(s);
      }
      if (i === MESSAGES / 2) console.log(`node 2: ${await ask({ cmd: 'move', actor: ACTOR, target: 1 })} (moving ${ACTOR} to node 1 under traffic)`);
      await sleep(1);
    }
    await until(() => node.actors.has(ACTOR) && node.actors.get(ACTOR).length >= sent.length + sessionSent.length
      && node.completions.size >= requests, 'everything arrived');

    const seen = node.actors.get(ACTOR) ?? [];
    let lost = 0;
    let duplicated = 0;
    for (const p of sent) {
      const n = seen.filter((x) => x === p).length;
      if (n === 0) lost++;
      if (n > 1) duplicated += n - 1;
    }
    const sessionSeen = seen.filter((x) => x.startsWith('s'));
    const sessionLost = sessionSent.filter((s) => !sessionSeen.includes(s)).length;
    const sessionDup = sessionSeen.length - new Set(sessionSeen).size;
    const inOrder = JSON.stringify(sessionSeen) === JSON.stringify(sessionSent.filter((s) => sessionSeen.includes(s)));
    const endedOnce = [...node.completions.values()].filter((o) => o.length === 1 && o[0].kind === 'Reply').length;
    console.log('');
    console.log('traffic      sent  delivered  lost  duplicated  requests  ended once');
    console.log(`by id     ${String(sent.length).padStart(7)} ${String(sent.length - lost + duplicated).padStart(10)} ${String(lost).padStart(5)} ${String(duplicated).padStart(11)} ${String(requests).padStart(9)} ${String(endedOnce).padStart(11)}`);
    console.log(`session   ${String(sessionSent.length).padStart(7)} ${String(sessionSeen.length).padStart(10)} ${String(sessionLost).padStart(5)} ${String(sessionDup).padStart(11)}         - ${inOrder ? '   in order' : 'OUT OF ORDER'}`);
    console.log(`node 1 relayed ${node.relayed}; node 2 (delivered relayed actors events): ${await ask({ cmd: 'tally' })}`);
    console.log(`node 1 events: ${node.events.join(',')}`);
    return lost === 0 && duplicated === 0 && sessionLost === 0 && sessionDup === 0 && inOrder && endedOnce === requests;
  } finally {
    proc.send({ cmd: 'quit' });
    node.close();
    console.log(`wall time ${Date.now() - started} ms`);
  }
}

if (process.argv[2] === 'child') {
  child(process.argv[3], Number(process.argv[4]));
} else {
  parent(process.argv[2]).then((ok) => process.exit(ok ? 0 : 1), (e) => { console.error(e); process.exit(1); });
}
