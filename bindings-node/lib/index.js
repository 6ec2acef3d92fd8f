'use strict';
// zlink for Node: the routing core of one MeshNode per `Runtime`. Calls that
// may reach the Location Store return Promises (they run on the runtime's
// own threads, never blocking the event loop nor filling libuv's pool);
// cache-only calls are synchronous. Arguments are checked here (lib/args.js)
// so a wrong one is an InputError with a `code`, never a crash. Results
// are plain objects with a `kind` (see index.d.ts); 64-bit IDs and
// generations are bigints; payloads are Buffers.

const native = require('./native.js');
const errors = require('./errors.js');
const decode = require('./decode.js');
const args = require('./args.js');
const routes = require('./routes.js');
const { NearCache } = require('./near.js');
const { registerMetrics } = require('./metrics.js');
const { jsonReplacer, toJSON } = require('./json.js');


const kindCode = args.kind;
const id = (value) => args.text(value, 'id');

const FIELDS = native.configFields().map((f) => f.replace(/_(\w)/g, (_, c) => c.toUpperCase()));
/** Where routeCacheCapacity is in a config's values. */
const CAPACITY = FIELDS.indexOf('routeCacheCapacity');
/** Kind names by code. */
const KIND_NAMES = { 1: 'spot', 2: 'actor' };

/**
 * The routing settings, checked (a broken rule throws a ConfigError naming it; a field that is
 * not one is an InputError 'UnknownOption'). Durations in milliseconds; fields not given (or
 * undefined) keep the defaults.
 */
function routingConfig(fields = {}) {
  return configOver(native.configDefault(), fields);
}

/** `fields` over `base` (the values in FIELDS order), checked: the frozen config. */
function configOver(base, fields) {
  const values = base.slice();
  for (const [name, value] of Object.entries(args.options(fields, 'the config', FIELDS))) {
    if (value === undefined) continue;
    if (!Number.isInteger(value)) {
      throw new errors.ConfigError(`${name} must be an integer number, got ${value}`, 'OutOfRange');
    }
    values[FIELDS.indexOf(name)] = value;
  }
  const checked = native.configCheck(values);
  return Object.freeze(Object.fromEntries(FIELDS.map((f, i) => [f, checked[i]])));
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
  advance(ms) { this.native.advance(args.count(ms, 'ms', Number.MAX_SAFE_INTEGER)); }
  nowMs() { return this.native.nowMs(); }
}

class SystemClock {
  constructor() { this.native = new native.NativeClock(false); }
  nowMs() { return this.native.nowMs(); }
}

class MemoryStore {
  /** The embedded store; share one between the runtimes of one process. */
  constructor(options = {}) {
    const o = args.options(options, 'the MemoryStore options', ['clock', 'tombstoneRetentionMs']);
    this.native = native.NativeStore.memory(args.instance(o.clock, [ManualClock, SystemClock], 'clock', 'NotAClock'),
      args.optionalCount(o.tombstoneRetentionMs, 'tombstoneRetentionMs'));
  }
}

// `writeAcks` names as the bridge's WriteAcksMode numbers; a number is a
// replica count (mode 2), checked by the bridge.
const WRITE_ACKS = { allReplicas: 1, primaryOnly: 3 };
const WRITE_ACKS_REPLICAS = 2;

/** `writeAcks` as the addon's mode and count, or {} when not given. */
function writeAcks(value) {
  if (value === undefined || value === null) return {};
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) {
      throw new errors.InputError(`writeAcks must be a whole number of replicas, got ${value}`, 'NotAnInteger');
    }
    return { writeAcksMode: WRITE_ACKS_REPLICAS, writeAcksReplicas: value };
  }
  if (typeof value === 'string' && Object.hasOwn(WRITE_ACKS, value)) return { writeAcksMode: WRITE_ACKS[value] };
  const shown = typeof value === 'string' ? JSON.stringify(value) : typeof value;
  throw new errors.StoreError(`writeAcks must be 'allReplicas', 'primaryOnly' or a number of replicas, got ${shown}`,
    'Config');
}

// RedisStore.connect's durations (milliseconds).
const REDIS_DURATIONS = ['connectTimeoutMs', 'responseTimeoutMs', 'epochCheckIntervalMs', 'tombstoneRetentionMs',
  'writeAckTimeoutMs'];

class RedisStore {
  /**
   * Connects to Redis (`redis://`, `rediss://`), a Redis Cluster
   * (`redis+cluster://h1:p1,h2:p2`) or the primary a group of Sentinels
   * names (`redis+sentinel://h1:p1,h2:p2/master-name`) off the event loop:
   * a Promise of the store.
   */
  static async connect(url, options = {}) {
    const o = args.options(options, 'the RedisStore options', ['prefix', 'writeAcks', ...REDIS_DURATIONS]);
    const checked = { prefix: o.prefix === undefined ? undefined : args.text(o.prefix, 'prefix'), ...writeAcks(o.writeAcks) };
    for (const f of REDIS_DURATIONS) {
      checked[f] = args.optionalCount(o[f], f) ?? undefined;
    }
    const store = Object.create(RedisStore.prototype);
    store.native = await native.connectRedis(args.text(url, 'url'), checked);
    store.url = url;
    return store;
  }
}

// The bridge's lifecycle writes, by number (the native `write`'s `op`).
const WRITES = { create: 1, publishReady: 2, activate: 3, renewLease: 4, beginRelease: 5 };

// `using rt = new Runtime(...)` closes it (Symbol.dispose where the
// runtime has it; Node 20 has Symbol.for('nodejs.dispose')).
const DISPOSE = Symbol.dispose ?? Symbol.for('nodejs.dispose');

class Runtime {
  /**
   * A runtime: `new Runtime({ mesh, rid, generation?, lease? }, { config?, store?, clock?,
   * workerThreads? })`.
   */
  constructor(identity, options = {}) {
    if (identity === null || typeof identity !== 'object') {
      throw new errors.InputError('identity must be an object { mesh, rid, generation?, lease? }', 'NotAnObject');
    }
    const me = args.options(identity, 'the identity', ['mesh', 'rid', 'generation', 'lease']);
    const o = args.options(options, 'the Runtime options', ['config', 'store', 'clock', 'workerThreads']);
    const parts = {
      mesh: args.text(me.mesh, 'mesh'),
      rid: args.u64(me.rid, 'rid'),
      generation: me.generation === undefined ? undefined : args.u64(me.generation, 'generation'),
      lease: me.lease === undefined ? undefined : args.u64(me.lease, 'lease'),
      config: o.config === undefined ? undefined : configValues(o.config),
      workerThreads: workerThreads(o.workerThreads),
    };
    this.native = new native.NativeRuntime(parts,
      args.instance(o.store, [MemoryStore, RedisStore], 'store', 'NotAStore'),
      args.instance(o.clock, [ManualClock, SystemClock], 'clock', 'NotAClock'));
    /** Its number for the cache-hit functions (lib/routes.js). */
    this.number = this.native.number;
    this.#near = NearCache.open(this.native, this.number, this.native.config()[CAPACITY]);
    // Every public method bound to this runtime, so a detached one
    // (`const { lookupCached } = rt`, `ids.forEach(rt.forgetBindings)`)
    // works; not enumerable, so the instance prints as before.
    for (const name of METHODS) {
      Object.defineProperty(this, name, { value: this[name].bind(this), writable: true, configurable: true });
    }
  }

  /**
   * Pending requests sent with a `signal`: correlation -> a function that
   * removes its abort listener (called once the request ends).
   */
  #watched = new Map();

  /**
   * The near cache (lib/near.js): cache hits answered without a native call. Null once closed
   * (every lookup then calls in, and throws the ClosedError), or where the engine shares no memory.
   */
  #near = null;

  /** Refuses every later call; work already on the pool finishes. Closing twice is allowed. */
  close() {
    this.#near?.flush();
    this.#near = null;
    this.native.close();
    for (const correlation of [...this.#watched.keys()]) this.#ended(correlation);
  }
  [DISPOSE]() { this.close(); }
  get closed() { return this.native.closed; }

  identity() { return decode.read(this.native.identity(), decode.identity); }

  config() {
    const values = this.native.config();
    return Object.freeze(Object.fromEntries(FIELDS.map((f, i) => [f, values[i]])));
  }

  /**
   * Changes the fields given of the config in force (the others keep their values in force),
   * checked as a whole: a broken rule throws a ConfigError and changes nothing.
   */
  updateConfig(partial) {
    if (partial === undefined || partial === null || typeof partial !== 'object') {
      throw new errors.InputError(`the config must be an object, got ${partial === null ? 'null' : typeof partial}`,
        'NotAnObject');
    }
    const merged = configOver(this.native.config(), partial);
    this.native.updateConfig(FIELDS.map((f) => merged[f]));
    // A new config changes no kept route's expiry, but start over: a
    // config change is rare, and a smaller capacity bounds the near cache.
    this.#near?.clear();
    this.#near?.resize(merged.routeCacheCapacity);
  }

  /** Cache only: the ReadyRoute, or null. Never blocks. */
  lookupCached(kind, objectId) { return this.#cached(kind, objectId); }

  /** lookupCached: a near hit, else the core's answer (kept by the near cache when it may be). */
  #cached(kind, objectId) {
    const near = this.#near;
    if (near === null) {
      native.lookupRoute(this.number, kindCode(kind), id(objectId), routes.scratch);
      return routes.route(0);
    }
    // Only checked IDs are kept: a hit needs no check.
    return near.get(kind, objectId) ?? near.fetch(kindCode(kind), id(objectId));
  }

  /** Cache only, for many IDs: each one's ReadyRoute or null, in order. Never blocks. */
  lookupCachedMany(kind, objectIds) {
    const code = kindCode(kind);
    if (!Array.isArray(objectIds)) throw new errors.InputError('ids must be an array of strings', 'NotAnArray');
    const n = objectIds.length;
    const out = new Array(n);
    const near = this.#near;
    if (near !== null) return this.#nearMany(near, code, objectIds, out);
    for (let start = 0; start < n; start += routes.BATCH) {
      // A plain array of the checked strings, read once: the addon sees
      // exactly what was checked, however the caller's array behaves.
      const chunk = new Array(Math.min(routes.BATCH, n - start));
      for (let i = 0; i < chunk.length; i++) chunk[i] = id(objectIds[start + i]);
      native.lookupRoutes(this.number, code, chunk, routes.scratch);
      for (let i = 0; i < chunk.length; i++) out[start + i] = routes.route(i);
    }
    return out;
  }

  /**
   * lookupCachedMany through the near cache: the hits at once (one clock reading for the batch:
   * each is the core's answer at that instant), then the others from the core in batches.
   */
  #nearMany(near, code, objectIds, out) {
    const map = near.mapOf(KIND_NAMES[code]);
    const n = out.length;
    // Each element read once (the addon sees exactly what was checked);
    // all the map lookups first, so their cache misses overlap.
    const given = new Array(n);
    for (let i = 0; i < n; i++) {
      const one = objectIds[i];
      given[i] = one;
      out[i] = map.get(one);
    }
    const now = near.now();
    let hits = 0;
    const misses = [];
    for (let i = 0; i < n; i++) {
      const slot = out[i];
      if (slot !== undefined && near.holds(slot, now)) {
        out[i] = near.routes[slot];
        hits++;
      } else {
        out[i] = null;
        misses.push(i);
      }
    }
    near.pending += hits;
    // Only now, when no slot read above is in use: asking the core keeps
    // routes, which may give a slot to another ID.
    for (let start = 0; start < misses.length; start += routes.BATCH) {
      const at = misses.slice(start, start + routes.BATCH);
      near.fetchMany(code, at.map((i) => id(given[i])), out, at);
    }
    return out;
  }

  /**
   * Resolves many IDs: the hits at once, the misses as `resolve` would (concurrent misses of
   * one ID share one store read): each one's Resolution, in order.
   */
  async resolveMany(kind, objectIds, options = {}) {
    const signal = abortSignal(args.options(options, 'the resolveMany options', ['signal']));
    if (signal?.aborted) throw abortError(signal, 'resolveMany');
    const out = this.lookupCachedMany(kind, objectIds);
    const misses = [];
    for (let i = 0; i < out.length; i++) if (out[i] === null) misses.push(i);
    if (misses.length > 0) {
      // The IDs as checked and read once, by lookupCachedMany.
      const code = kindCode(kind);
      const ids = misses.map((i) => id(objectIds[i]));
      const reads = Promise.all(ids.map((one) => this.native.resolve(code, one)));
      const read = await (signal === undefined ? reads : abortable(reads, signal, 'resolveMany'));
      misses.forEach((slot, n) => { out[slot] = decode.read(read[n], decode.resolution); });
    }
    return out;
  }

  /**
   * Resolves a global ID: a cache hit at once, else a store read on the pool. Never rejects for
   * a routing outcome: ReadyRoute | Missing | Unavailable | StoreFailure. `signal` aborts the
   * wait.
   */
  async resolve(kind, objectId, options = {}) {
    const signal = abortSignal(args.options(options, 'the resolve options', ['signal']));
    if (signal?.aborted) throw abortError(signal, 'resolve');
    const code = kindCode(kind);
    const hit = this.#cached(kind, objectId);
    if (hit !== null) return hit;
    const read = this.native.resolve(code, objectId);
    return decode.read(await (signal === undefined ? read : abortable(read, signal, 'resolve')), decode.resolution);
  }

  /** How many objects this node owns. */
  ownedCount() { return this.native.ownedCount(); }

  /** Creates a new incarnation owned by this node, in Creating. */
  create(kind, objectId) { return this.#write(WRITES.create, kind, objectId); }

  /** Publishes this node's Creating object as Ready. */
  publishReady(kind, objectId) { return this.#write(WRITES.publishReady, kind, objectId); }

  /** Creates, then publishes Ready. */
  activate(kind, objectId) { return this.#write(WRITES.activate, kind, objectId); }

  /** Extends this node's owner lease on the object. */
  renewLease(kind, objectId) { return this.#write(WRITES.renewLease, kind, objectId); }

  /** Starts releasing: the ID resolves Unavailable (Releasing). */
  beginRelease(kind, objectId) { return this.#write(WRITES.beginRelease, kind, objectId); }

  async #write(op, kind, objectId) {
    return decode.read(await this.native.write(op, kindCode(kind), id(objectId)), decode.owned);
  }

  /** Completes a release: the ID resolves Missing. */
  async completeRelease(kind, objectId) {
    await this.native.completeRelease(kindCode(kind), id(objectId));
  }

  /** Every counter: `{ store_reads, resolutions: { ready_route, ... }, ... }`. */
  stats() {
    this.#near?.flush();
    return decode.read(this.native.stats(), decode.stats);
  }

  // ---- 7-13: operations, frames, replies, timers ------------------------

  /**
   * Sends a one-way message: Submitted | NotFound | ColdActivation | Unavailable | StoreFailure.
   * An aborted `signal` rejects with an AbortError (a frame decided meanwhile is dropped).
   */
  async send(kind, objectId, payload, options) {
    const o = args.options(options, 'the send options', CALL_OPTIONS);
    const signal = abortSignal(o);
    if (signal?.aborted) throw abortError(signal, 'send');
    const sent = this.native.send(kindCode(kind), id(objectId), buffer(payload), callOptions(o));
    return decode.read(await (signal === undefined ? sent : abortable(sent, signal, 'send')), decode.sent);
  }

  /**
   * Sends a request; its one terminal result comes as a Completed decision. An aborted `signal`
   * rejects with an AbortError while this call runs, and cancels the request (as `cancel` would)
   * while it is pending.
   */
  async request(kind, objectId, payload, options) {
    const o = args.options(options, 'the request options', CALL_OPTIONS);
    const signal = abortSignal(o);
    if (signal?.aborted) throw abortError(signal, 'request');
    const call = this.native.request(kindCode(kind), id(objectId), buffer(payload), callOptions(o))
      .then((bytes) => decode.read(bytes, decode.sent));
    if (signal === undefined) return call;
    // Aborted while the call runs: the request it made, if any, is cancelled once known.
    const sent = await abortable(call, signal, 'request', (late) => this.#cancelQuietly(late.correlation));
    if (sent.correlation === null || sent.correlation === undefined) return sent;
    if (signal.aborted) {
      // Aborted as the call ended (its listener gone): cancelled all the same.
      this.#cancelQuietly(sent.correlation);
      throw abortError(signal, 'request');
    }
    this.#watch(sent.correlation, signal);
    return sent;
  }

  /** Cancels pending request `correlation` when `signal` aborts (until the request ends). */
  #watch(correlation, signal) {
    const abort = () => this.#cancelQuietly(correlation);
    signal.addEventListener('abort', abort, { once: true });
    this.#watched.set(correlation, () => signal.removeEventListener('abort', abort));
  }

  /** Request `correlation` ended: stops watching its signal. */
  #ended(correlation) {
    const unwatch = this.#watched.get(correlation);
    if (unwatch !== undefined) {
      this.#watched.delete(correlation);
      unwatch();
    }
  }

  /** The decisions `ds` came out: stops watching the requests they complete. */
  #completed(ds) {
    if (this.#watched.size > 0) for (const d of ds) if (d.kind === 'Completed') this.#ended(d.completion.correlation);
    return ds;
  }

  /** `cancel` from an abort listener: never throws (a closed runtime has nothing to cancel). */
  #cancelQuietly(correlation) {
    if (correlation === null || correlation === undefined) return;
    this.#ended(correlation);
    if (this.native.closed) return;
    try {
      this.native.cancel(correlation);
    } catch {
      // Closed meanwhile: every request has ended.
    }
  }

  /** What to do with one frame from node `fromNode` (its routing ID). */
  async onFrame(fromNode, frame) {
    const d = decode.read(await this.native.onFrame(args.u64(fromNode, 'fromNode'), args.bytes(frame, 'a frame')),
      decode.inbound);
    return this.#completed([d])[0];
  }

  /** Answers a delivered request with `payload`: the frame to carry back. */
  reply(operation, payload) {
    return decode.read(this.native.reply(args.frameOf(operation), buffer(payload), null, null, null), decode.outbound);
  }

  /** Answers a delivered request with an error: `errorKind` 'Handler' | 'Decode'. */
  replyError(operation, errorKind, code = 0, message = '') {
    return decode.read(this.native.reply(args.frameOf(operation), null, args.text(errorKind, 'errorKind'),
      args.count(code, 'code', 0xffff_ffff), args.text(message, 'message')), decode.outbound);
  }

  /**
   * Reports whether a Relay's notification was sent. Anything but the `token` of a Relay
   * decision's `notice` is an InputError 'NotANoticeToken'.
   */
  noticeSettled(token, sent) {
    if (!(token instanceof Uint8Array)) throw notANoticeToken(token);
    // Bytes the library did not make are refused by the bridge as
    // NotANoticeToken (bridge/src/decode.rs).
    this.native.noticeSettled(args.bytes(token), Boolean(sent));
  }

  /** Cancels a pending request: its Completion, or null if it had already ended. */
  cancel(correlation) {
    const c = args.u64(correlation, 'correlation');
    const done = this.native.cancel(c);
    this.#ended(c);
    return done === null ? null : decode.read(done, decode.inbound).completion;
  }

  /** Ends every pending request with Shutdown: their Completions. */
  /** Every metric family, read now: the counters, then the latency histograms. */
  metrics() {
    this.#near?.flush();
    return decode.read(this.native.metrics(), decode.list(decode.metricFamily));
  }

  /** Every metric in the Prometheus text exposition format. */
  metricsText() {
    this.#near?.flush();
    return this.native.metricsText();
  }

  shutdownRequests() {
    return this.#completed(decode.read(this.native.shutdownRequests(), decode.list(decode.inbound)))
      .map((d) => d.completion);
  }

  pendingRequests() { return this.native.pendingRequests(); }

  /** The runtime clock now, in ns (bigint). */
  now() { return this.native.now(); }

  /** The earliest instant (ns, bigint) a deadline needs waking at, or null. */
  nextDeadline() { return this.native.nextDeadline(); }

  /** Runs every deadline due at `now` (ns; default: the clock's now): the decisions. */
  async onTimeout(now) {
    const at = now === undefined || now === null ? null : args.u64(now, 'now');
    return this.#completed(decode.read(await this.native.onTimeout(at), decode.list(decode.inbound)));
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

  /**
   * Source: starts moving an object to runtime `targetRid` whose node generation is
   * `targetGeneration` (required: a restarted target refuses another); carry every frame of `send`.
   */
  beginRelocation(kind, objectId, targetRid, targetGeneration, handoff = {}) {
    const { saved = [], state = Buffer.alloc(0) } = args.options(handoff, 'the handoff', ['saved', 'state']);
    if (!Array.isArray(saved)) throw new errors.InputError('saved must be an array of Operations', 'NotADelivery');
    const started = this.native.beginRelocation(kindCode(kind), id(objectId), args.u64(targetRid, 'targetRid'),
      args.u64(targetGeneration, 'targetGeneration'), Array.from(saved, args.frameOf), args.bytes(state, 'state'));
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
    return decode.read(this.native.openSession(args.u64(session, 'session'), args.u64(generation, 'generation')),
      decode.sessionRef);
  }

  /** Binds a Session to Actor `actor` at `route` (an ActorRoute, or a RouteEnd from ownerRouteEnd). */
  bind(session, actor, route) {
    const r = args.options(route, 'route');
    const at = r.fence === undefined ? r : {
      owner: r.node,
      objectGeneration: r.fence.objectGeneration,
      authorityOwnerGeneration: r.fence.authorityOwnerGeneration,
      ownerLeaseGeneration: r.fence.ownerLeaseGeneration,
    };
    const parts = {
      owner: args.node(at.owner, 'route.owner'),
      objectGeneration: args.u64(at.objectGeneration, 'objectGeneration'),
      authorityOwnerGeneration: args.u64(at.authorityOwnerGeneration, 'authorityOwnerGeneration'),
      ownerLeaseGeneration: args.u64(at.ownerLeaseGeneration, 'ownerLeaseGeneration'),
      leaseRemainingMs: args.optionalCount(at.leaseRemainingMs, 'leaseRemainingMs') ?? undefined,
    };
    return decode.read(this.native.bind(args.u64(session, 'session'), id(actor), parts), decode.outbound);
  }

  binding(session, actor) {
    const b = this.native.binding(args.u64(session, 'session'), id(actor));
    return b === null ? null : decode.read(b, decode.bindingRoute);
  }

  /** Relays a payload from a Session to a bound Actor: SessionSent | SessionHeld | Unavailable. */
  sessionSend(session, actor, payload) {
    return decode.read(this.native.sessionSend(args.u64(session, 'session'), id(actor), buffer(payload)),
      decode.sessionSent);
  }

  disconnectSession(session, physical = true) {
    return decode.read(this.native.disconnectSession(args.u64(session, 'session'), Boolean(physical)),
      decode.list(decode.outbound));
  }

  push(actor, session, payload) {
    const s = args.options(session, 'session');
    const out = this.native.push(id(actor), args.node(s.owner, 'session.owner'), args.u64(s.id, 'session.id'),
      args.u64(s.generation, 'session.generation'), buffer(payload));
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
    return decode.read(await this.native.publishDescriptor(args.text(endpoint, 'endpoint'),
      args.text(securityIdentity, 'securityIdentity')), decode.peerDescriptor);
  }

  addManualPeer(endpoint) { this.native.addManualPeer(args.text(endpoint, 'endpoint')); }

  async connectManualPeers() {
    return decode.read(await this.native.connectManualPeers(), decode.list(decode.peerReplacement));
  }

  async ensureManualPeer(endpoint) {
    const found = decode.read(await this.native.ensureManualPeer(args.text(endpoint, 'endpoint')),
      decode.list(decode.peerReplacement));
    return found[0] ?? null;
  }

  peerOpened(endpoint, rid) { this.native.peerOpened(args.text(endpoint, 'endpoint'), args.u64(rid, 'rid')); }

  peerClosed(endpoint) {
    const r = this.native.peerClosed(args.text(endpoint, 'endpoint'));
    return r === null ? null : decode.read(r, decode.peerReplacement);
  }

  peerIntent(endpoint) {
    const i = this.native.peerIntent(args.text(endpoint, 'endpoint'));
    return i === null ? null : decode.read(i, decode.peerIntent);
  }

  peerEndpoint(rid) { return this.native.peerEndpoint(args.u64(rid, 'rid')); }

  /** The lifecycle `lease` of node `node` ended: drops its cached routes (how many). */
  onOwnerLeaseInvalidated(node, lease) {
    return this.native.onOwnerLeaseInvalidated(args.u64(node, 'node'), args.u64(lease, 'lease'));
  }

  /** A store recovery event the host observed: clears the route cache (how many). */
  onStoreRecovery() { return this.native.onStoreRecovery(); }

  async onPeerFrame(endpoint, frame) {
    const d = decode.read(await this.native.onPeerFrame(args.text(endpoint, 'endpoint'), args.bytes(frame, 'a frame')),
      decode.inbound);
    return this.#completed([d])[0];
  }
}

/** The Runtime's public methods, bound to each instance by its constructor. */
const METHODS = Object.getOwnPropertyNames(Runtime.prototype).filter((name) => name !== 'constructor'
  && typeof Object.getOwnPropertyDescriptor(Runtime.prototype, name).value === 'function');

const buffer = (value) => args.bytes(value);

/** The `signal` of checked options `o`: an AbortSignal, or undefined when not given. */
function abortSignal(o) {
  const { signal } = o;
  if (signal === undefined || signal === null) return undefined;
  if (!(signal instanceof AbortSignal)) {
    throw new errors.InputError('signal must be an AbortSignal', 'NotAnAbortSignal');
  }
  return signal;
}

/** What an aborted call rejects with: code 'Aborted', name 'AbortError', the signal's reason as cause. */
function abortError(signal, call) {
  const why = signal.reason instanceof Error ? `: ${signal.reason.message}` : '';
  return new errors.AbortError(`${call} was aborted${why}`, 'Aborted', { cause: signal.reason });
}

/**
 * Resolves as `promise`, or rejects with an AbortError when `signal` aborts first; then `late`
 * (if given) gets what `promise` resolves with.
 */
function abortable(promise, signal, call, late) {
  return new Promise((resolve, reject) => {
    const abort = () => {
      reject(abortError(signal, call));
      if (late !== undefined) promise.then(late, () => {});
    };
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** What `noticeSettled` throws for a token no Relay gave. */
function notANoticeToken(token) {
  const got = token instanceof Uint8Array ? `${token.length} bytes no Relay's notice gave`
    : token === null || typeof token !== 'object' ? String(token) : 'an object';
  return new errors.InputError(`not a notice token (give back a Relay decision's notice.token), got ${got}`,
    'NotANoticeToken');
}

/** The options of `send` and `request`. */
const CALL_OPTIONS = ['instanceIntent', 'deadlineMs', 'timeoutMs', 'origin', 'signal'];

/** Checked send or request options `o` as the addon takes them (null for none). */
function callOptions(o) {
  if (Object.keys(o).length === 0) return null;
  const origin = o.origin === undefined || o.origin === null ? null
    : args.options(o.origin, 'origin', ['spot', 'objectGeneration']);
  return {
    instanceIntent: o.instanceIntent === undefined ? undefined : Boolean(o.instanceIntent),
    deadlineMs: args.optionalCount(o.deadlineMs, 'deadlineMs') ?? undefined,
    timeoutMs: args.optionalCount(o.timeoutMs, 'timeoutMs') ?? undefined,
    originSpot: origin === null ? undefined : args.text(origin.spot, 'origin.spot'),
    originGeneration: origin === null ? undefined : args.u64(origin.objectGeneration ?? 0n, 'origin.objectGeneration'),
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
  const code = Object.hasOwn(LEVELS, level) ? LEVELS[level] : undefined;
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
    const l = args.options(limits, 'the limits', ['maxObjectIdBytes', 'maxPayloadBytes', 'maxStateBytes']);
    const out = native.wireDecode(args.bytes(data, 'a frame'), args.optionalCount(l.maxObjectIdBytes, 'maxObjectIdBytes'),
      args.optionalCount(l.maxPayloadBytes, 'maxPayloadBytes'), args.optionalCount(l.maxStateBytes, 'maxStateBytes'));
    return decode.read(out, (r) => ({ command: r.str(), description: JSON.parse(r.str()), bytes: r.bytes() }));
  },
};

// Every name written out (no spread), so Node's CommonJS export detection
// sees each one and `import { InputError } from 'zlink'` works in ESM.
const {
  ZlinkError, InputError, ConfigError, StoreError, LifecycleError, WireError, ReplyRouteError, SessionError,
  RelocationError, ClosedError, ForkedRuntimeError, AbortError,
} = errors;

module.exports = {
  wire,
  onLog,
  registerMetrics,
  toJSON,
  jsonReplacer,
  Runtime,
  ManualClock,
  SystemClock,
  MemoryStore,
  RedisStore,
  routingConfig,
  ZlinkError,
  InputError,
  ConfigError,
  StoreError,
  LifecycleError,
  WireError,
  ReplyRouteError,
  SessionError,
  RelocationError,
  ClosedError,
  ForkedRuntimeError,
  AbortError,
};
