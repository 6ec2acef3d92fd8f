'use strict';
// zlink for Node: the routing core of one MeshNode per `Runtime`. Calls that
// may reach the Location Store return Promises (they run on the libuv pool,
// never blocking the event loop); cache-only calls are synchronous. Results
// are plain objects with a `kind` (see index.d.ts); 64-bit IDs and
// generations are bigints; payloads are Buffers.

const native = require('../index.js');
const errors = require('./errors.js');
const decode = require('./decode.js');

native.setErrorFactory(errors.make);

const KINDS = { spot: 1, actor: 2 };

function kindCode(kind) {
  const code = KINDS[kind];
  if (code === undefined) {
    throw new errors.InputError(`kind must be "spot" or "actor", got ${JSON.stringify(kind)}`, 'UnknownObjectKind');
  }
  return code;
}

function id(value) {
  if (typeof value !== 'string') {
    throw new errors.InputError(`id must be a string, got ${typeof value}`, 'NotAString');
  }
  return value;
}

const FIELDS = native.configFields().map((f) => f.replace(/_(\w)/g, (_, c) => c.toUpperCase()));

/**
 * The routing settings, checked (a broken rule throws a ConfigError naming it). Durations in
 * milliseconds; fields not given keep the defaults.
 */
function routingConfig(fields = {}) {
  const values = native.configDefault();
  for (const [name, value] of Object.entries(fields)) {
    const i = FIELDS.indexOf(name);
    if (i < 0) throw new errors.ConfigError(`unknown config field ${name}`, 'UnknownField');
    values[i] = value;
  }
  return Object.freeze(Object.fromEntries(FIELDS.map((f, i) => [f, native.configCheck(values)[i]])));
}

function configValues(config) {
  const checked = routingConfig(config);
  return FIELDS.map((f) => checked[f]);
}

function workerThreads(n) {
  if (n === undefined || n === null) return undefined;
  if (!Number.isInteger(n) || n < 1 || n > 64) {
    throw new errors.InputError(`workerThreads must be an integer in 1..=64, got ${n}`, 'OutOfRange');
  }
  return n;
}

class ManualClock {
  constructor() { this.native = new native.NativeClock(true); }
  /** Moves time forward by `ms` milliseconds. */
  advance(ms) { this.native.advance(ms); }
  nowMs() { return this.native.nowMs(); }
}

class SystemClock {
  constructor() { this.native = new native.NativeClock(false); }
  nowMs() { return this.native.nowMs(); }
}

class MemoryStore {
  /** The embedded store; share one between the runtimes of one process. */
  constructor(options = {}) {
    this.native = native.NativeStore.memory(options.clock?.native ?? null, options.tombstoneRetentionMs ?? null);
  }
}

class RedisStore {
  /**
   * Connects to Redis (`redis://`, `rediss://`) or a Redis Cluster
   * (`redis+cluster://h1:p1,h2:p2`) off the event loop: a Promise of the store.
   */
  static async connect(url, options = {}) {
    const store = Object.create(RedisStore.prototype);
    store.native = await native.connectRedis(url, options);
    store.url = url;
    return store;
  }
}

const WRITES = { create: 1, publishReady: 2, activate: 3, renewLease: 4, beginRelease: 5 };

class Runtime {
  /**
   * A runtime: `new Runtime({ mesh, rid, generation?, lease? }, { config?, store?, clock?,
   * workerThreads? })`.
   */
  constructor(identity, options = {}) {
    const parts = {
      mesh: identity.mesh,
      rid: BigInt(identity.rid),
      generation: identity.generation === undefined ? undefined : BigInt(identity.generation),
      lease: identity.lease === undefined ? undefined : BigInt(identity.lease),
      config: options.config === undefined ? undefined : configValues(options.config),
      workerThreads: workerThreads(options.workerThreads),
    };
    this.native = new native.NativeRuntime(parts, options.store?.native ?? null, options.clock?.native ?? null);
  }

  /** Refuses every later call; work already on the pool finishes. Closing twice is allowed. */
  close() { this.native.close(); }
  [Symbol.dispose ?? Symbol.for('nodejs.dispose')]() { this.close(); }
  get closed() { return this.native.closed; }

  identity() { return decode.read(this.native.identity(), decode.identity); }

  config() {
    const values = this.native.config();
    return Object.freeze(Object.fromEntries(FIELDS.map((f, i) => [f, values[i]])));
  }

  /** Cache only: the ReadyRoute, or null. Never blocks. */
  lookupCached(kind, objectId) {
    const hit = this.native.lookupCached(kindCode(kind), id(objectId));
    return hit === null ? null : decode.read(hit, decode.readyRoute);
  }

  /**
   * Resolves a global ID: a cache hit at once, else a store read on the pool. Never rejects for
   * a routing outcome: ReadyRoute | Missing | Unavailable | StoreFailure. `signal` aborts the
   * wait.
   */
  async resolve(kind, objectId, options = {}) {
    options.signal?.throwIfAborted();
    const code = kindCode(kind);
    const hit = this.native.lookupCached(code, id(objectId));
    if (hit !== null) return decode.read(hit, decode.readyRoute);
    return decode.read(await this.native.resolve(code, objectId, options.signal), decode.resolution);
  }

  /** How many objects this node owns. */
  ownedCount() { return this.native.ownedCount(); }

  /** Completes a release: the ID resolves Missing. */
  async completeRelease(kind, objectId) {
    await this.native.completeRelease(kindCode(kind), id(objectId));
  }

  /** Every counter: `{ store_reads, resolutions: { ready_route, ... }, ... }`. */
  stats() { return decode.read(this.native.stats(), decode.stats); }

  // ---- 7-13: operations, frames, replies, timers ------------------------

  /** Sends a one-way message: Submitted | NotFound | ColdActivation | Unavailable | StoreFailure. */
  async send(kind, objectId, payload, options) {
    return decode.read(await this.native.send(kindCode(kind), id(objectId), buffer(payload), callOptions(options)), decode.sent);
  }

  /** Sends a request; its one terminal result comes as a Completed decision. */
  async request(kind, objectId, payload, options) {
    return decode.read(await this.native.request(kindCode(kind), id(objectId), buffer(payload), callOptions(options)), decode.sent);
  }

  /** What to do with one frame from node `fromNode` (its routing ID). */
  async onFrame(fromNode, frame) {
    return decode.read(await this.native.onFrame(BigInt(fromNode), buffer(frame)), decode.inbound);
  }

  /** Answers a delivered request with `payload`: the frame to carry back. */
  reply(operation, payload) {
    return decode.read(this.native.reply(operation.frame, buffer(payload), null, null, null), decode.outbound);
  }

  /** Answers a delivered request with an error: `errorKind` 'Handler' | 'Decode'. */
  replyError(operation, errorKind, code, message) {
    return decode.read(this.native.reply(operation.frame, null, errorKind, code, message), decode.outbound);
  }

  /** Reports whether a Relay's notification was sent. */
  noticeSettled(token, sent) { this.native.noticeSettled(token, sent); }

  /** Cancels a pending request: its Completion, or null if it had already ended. */
  cancel(correlation) {
    const done = this.native.cancel(BigInt(correlation));
    return done === null ? null : decode.read(done, decode.inbound).completion;
  }

  /** Ends every pending request with Shutdown: their Completions. */
  shutdownRequests() {
    return decode.read(this.native.shutdownRequests(), decode.list(decode.inbound)).map((d) => d.completion);
  }

  pendingRequests() { return this.native.pendingRequests(); }

  /** The runtime clock now, in ns (bigint). */
  now() { return this.native.now(); }

  /** The earliest instant (ns, bigint) a deadline needs waking at, or null. */
  nextDeadline() { return this.native.nextDeadline(); }

  /** Runs every deadline due at `now` (ns; default: the clock's now): the decisions. */
  async onTimeout(now) {
    return decode.read(await this.native.onTimeout(now === undefined ? null : BigInt(now)), decode.list(decode.inbound));
  }

  // ---- 17-20: ownership and relocation ------------------------------------

  owned(kind, objectId) {
    const o = this.native.owned(kindCode(kind), id(objectId));
    return o === null ? null : decode.read(o, decode.owned);
  }

  ownerRouteEnd(kind, objectId) {
    const e = this.native.ownerRouteEnd(kindCode(kind), id(objectId));
    return e === null ? null : decode.read(e, decode.routeEnd);
  }

  /** Source: starts moving an object to runtime `targetRid`; carry every frame of `send`. */
  beginRelocation(kind, objectId, targetRid, targetGeneration = 1n, { saved = [], state = Buffer.alloc(0) } = {}) {
    const frames = saved.map((op) => op.frame);
    const started = this.native.beginRelocation(kindCode(kind), id(objectId), BigInt(targetRid),
      BigInt(targetGeneration), frames, buffer(state));
    return decode.read(started, decode.relocationStarted);
  }

  /** Target: the object was rebuilt from the Restore's state: relay-ready's frames. */
  relocationRestored(kind, objectId) {
    return decode.read(this.native.relocationRestored(kindCode(kind), id(objectId)), decode.list(decode.outbound));
  }

  /** Abandons a relocation before relay-ready: its Relocation decision. */
  abortRelocation(kind, objectId) {
    return decode.read(this.native.abortRelocation(kindCode(kind), id(objectId)), decode.inbound);
  }

  // ---- 21-26: sessions -------------------------------------------------------

  openSession(session, generation = 1n) {
    return decode.read(this.native.openSession(BigInt(session), BigInt(generation)), decode.sessionRef);
  }

  /** Binds a Session to Actor `actor` at `route` (an ActorRoute, or a RouteEnd from ownerRouteEnd). */
  bind(session, actor, route) {
    const parts = route.fence === undefined ? route : {
      owner: route.node,
      objectGeneration: route.fence.objectGeneration,
      authorityOwnerGeneration: route.fence.authorityOwnerGeneration,
      ownerLeaseGeneration: route.fence.ownerLeaseGeneration,
    };
    return decode.read(this.native.bind(BigInt(session), id(actor), parts), decode.outbound);
  }

  binding(session, actor) {
    const b = this.native.binding(BigInt(session), id(actor));
    return b === null ? null : decode.read(b, decode.bindingRoute);
  }

  /** Relays a payload from a Session to a bound Actor: SessionSent | SessionHeld | Unavailable. */
  sessionSend(session, actor, payload) {
    return decode.read(this.native.sessionSend(BigInt(session), id(actor), buffer(payload)), decode.sessionSent);
  }

  disconnectSession(session, physical = true) {
    return decode.read(this.native.disconnectSession(BigInt(session), physical), decode.list(decode.outbound));
  }

  push(actor, session, payload) {
    const out = this.native.push(id(actor), session.owner, session.id, session.generation, buffer(payload));
    return out === null ? null : decode.read(out, decode.outbound);
  }

  boundSessions(actor) {
    return decode.read(this.native.boundSessions(id(actor)), decode.list(decode.registration));
  }

  refreshSessionRoutes(actor) {
    return decode.read(this.native.refreshSessionRoutes(id(actor)), decode.list(decode.outbound));
  }

  forgetBindings(actor) { this.native.forgetBindings(id(actor)); }

  // ---- 27-30: manual object peers -------------------------------------------

  async publishDescriptor(endpoint, securityIdentity) {
    return decode.read(await this.native.publishDescriptor(endpoint, securityIdentity), decode.peerDescriptor);
  }

  addManualPeer(endpoint) { this.native.addManualPeer(endpoint); }

  async connectManualPeers() {
    return decode.read(await this.native.connectManualPeers(), decode.list(decode.peerReplacement));
  }

  async ensureManualPeer(endpoint) {
    const found = decode.read(await this.native.ensureManualPeer(endpoint), decode.list(decode.peerReplacement));
    return found[0] ?? null;
  }

  peerOpened(endpoint, rid) { this.native.peerOpened(endpoint, BigInt(rid)); }

  peerClosed(endpoint) {
    const r = this.native.peerClosed(endpoint);
    return r === null ? null : decode.read(r, decode.peerReplacement);
  }

  peerIntent(endpoint) {
    const i = this.native.peerIntent(endpoint);
    return i === null ? null : decode.read(i, decode.peerIntent);
  }

  peerEndpoint(rid) { return this.native.peerEndpoint(BigInt(rid)); }

  /** The lifecycle `lease` of node `node` ended: drops its cached routes (how many). */
  onOwnerLeaseInvalidated(node, lease) { return this.native.onOwnerLeaseInvalidated(BigInt(node), BigInt(lease)); }

  /** A store recovery event the host observed: clears the route cache (how many). */
  onStoreRecovery() { return this.native.onStoreRecovery(); }

  async onPeerFrame(endpoint, frame) {
    return decode.read(await this.native.onPeerFrame(endpoint, buffer(frame)), decode.inbound);
  }
}

function buffer(value) {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  throw new errors.InputError('a payload must be a Buffer, a Uint8Array or a string', 'NotBytes');
}

function callOptions(o) {
  if (o === undefined) return null;
  return {
    instanceIntent: o.instanceIntent,
    deadlineMs: o.deadlineMs,
    timeoutMs: o.timeoutMs,
    originSpot: o.origin?.spot,
    originGeneration: o.origin === undefined ? undefined : BigInt(o.origin.objectGeneration),
  };
}

for (const [name, op] of Object.entries(WRITES)) {
  Runtime.prototype[name] = async function write(kind, objectId) {
    return decode.read(await this.native.write(op, kindCode(kind), id(objectId)), decode.owned);
  };
}

const LEVELS = { error: 1, warn: 2, info: 3, debug: 4, trace: 5 };

/**
 * Sends the core's log records at `level` ('error' | 'warn' | 'info' | 'debug' | 'trace') and
 * more severe to `callback({ level, target, message })`, on the event loop. The core never
 * waits for it (a full queue drops records) and it never keeps the process alive. `null` stops.
 */
function onLog(callback, level = 'info') {
  if (callback === null) {
    native.setLogCallback(null, 1);
    return;
  }
  if (typeof callback !== 'function') {
    throw new errors.InputError('the log callback must be a function or null', 'NotAFunction');
  }
  const code = LEVELS[level];
  if (code === undefined) throw new errors.InputError(`unknown log level ${level}`, 'UnknownLogLevel');
  native.setLogCallback((lvl, target, message) => {
    try {
      callback({ level: lvl.toLowerCase(), target, message });
    } catch (e) {
      // A throwing callback must not take the process down with it.
      process.emitWarning(`zlink log callback threw: ${e}`);
    }
  }, code);
}

/**
 * The strict frame codec (docs/wire.md): decodes one whole frame, or throws a WireError whose
 * `code` names why. Limits in bytes (defaults when not given).
 */
const wire = {
  decode(data, limits = {}) {
    const out = native.wireDecode(buffer(data), limits.maxObjectIdBytes ?? null,
      limits.maxPayloadBytes ?? null, limits.maxStateBytes ?? null);
    return decode.read(out, (r) => ({ command: r.str(), description: JSON.parse(r.str()), bytes: r.bytes() }));
  },
};

module.exports = { wire, onLog, Runtime, ManualClock, SystemClock, MemoryStore, RedisStore, routingConfig, ...errors };
