/// <reference types="node" />
// Types of the `zlink` package. 64-bit IDs and generations are bigints;
// milliseconds are numbers; payloads and frames are Buffers. Every options
// object is checked: a key it does not have is an InputError 'UnknownOption'.

import type { LivenessName, ObjectKindName, ReplyErrorKindName, UnavailableReasonName } from './codes';

import type {
  ActorRoute, BindingRoute, Completion, Inbound, MetricFamily, NodeRef, Outbound, OwnedObject, ReadyRoute,
  Relocation, RelocationIdentity, Resolution, RouteEnd, RouteFence, SendResult, SessionRef, SessionSendResult,
} from './surface';

// The result types of the bridge's surface (surface.d.ts) and the closed
// sets' names (codes.d.ts) are generated from the bridge.
export * from './surface';

// `registerMetrics(rt, registry)`: the runtime's metrics in a prom-client Registry (lib/metrics.d.ts).
export * from './metrics';

export type Kind = ObjectKindName;

export type UnavailableReason = UnavailableReasonName;

export interface SendOptions {
  instanceIntent?: boolean; deadlineMs?: number; timeoutMs?: number;
  origin?: { spot: string; objectGeneration: bigint | number };
  /**
   * Aborts the call: already aborted, it rejects at once with an AbortError; aborted while the
   * call runs, it rejects with one (a frame decided meanwhile is dropped; a request made
   * meanwhile is cancelled); aborted while a request is pending (after `request` resolved,
   * before its Completed decision), it cancels the request as `cancel(correlation)` would.
   */
  signal?: AbortSignal;
}

/**
 * A delivered Message or Request; give it back to `reply`, `replyError` or
 * `beginRelocation({ saved })`. Every field is enumerable: a spread or a `structuredClone`
 * of it (whose Buffers are then Uint8Arrays) is taken as well.
 */
export interface Operation {
  operationId: bigint; objectKind: Kind; id: string; payload: Buffer; origin: NodeRef;
  fence: RouteFence; hopCount: number; objectGeneration: bigint; correlation: bigint | null;
  isRequest: boolean;
  /** The operation's frame, as the runtime gave it (a Uint8Array is taken too). */
  readonly frame: Buffer;
}

/**
 * Identifies a Relay's command 50 notification: give it to `noticeSettled` (anything else is an
 * InputError 'NotANoticeToken').
 */
export type NoticeToken = Buffer;

export interface PeerDescriptor { endpoint: string; rid: bigint; lifecycleGeneration: bigint; securityIdentity: string }
export interface PeerReplacement { descriptor: PeerDescriptor }
export interface PeerIntent {
  endpoint: string; installed: PeerDescriptor | null; liveness: LivenessName;
  observedRid: bigint | null; pending: PeerDescriptor | null;
}
type Bytes = Buffer | Uint8Array | string;

export interface NodeIdentity {
  /**
   * The mesh's name: 1 to 23 bytes of UTF-8 (bytes, not characters: 'é' is 2). A longer one is
   * an InputError 'MeshNameTooLong' ("... over the 23-byte cap"); an empty one 'EmptyMeshName'.
   */
  mesh: string;
  rid: bigint | number; generation?: bigint | number; lease?: bigint | number;
}

export interface RoutingConfig {
  routeCacheMaxAge: number; messageFollowDuration: number; maxFollowHops: number;
  sessionRelocationSealTimeout: number; sessionBindTimeout: number; routeCacheCapacity: number;
  ownerLeaseDuration: number; storeTimeout: number; storeAttempts: number; maxObjectIdBytes: number;
  maxMessageBytes: number; relocationTimeout: number; maxRelocationStateBytes: number;
}

/**
 * The routing settings, checked: a broken rule throws a ConfigError naming it; a key that is not
 * a field an InputError 'UnknownOption'. Fields not given keep the defaults.
 */
export function routingConfig(fields?: Partial<RoutingConfig>): Readonly<RoutingConfig>;

/** Every counter of `stats()`, by the bridge's names (bridge/src/stats.rs). */
export interface Stats {
  cache_hits: number; cache_misses: number; cache_entries: number; cache_evictions: number;
  store_reads: number; store_failures: number; store_recoveries: number;
  store_writes_unreplicated: number; ownerships_lost: number;
  resolutions: { ready_route: number; missing: number; unavailable: number; store_failure: number };
  /** Route cache entries removed, by reason. */
  invalidations: {
    higher_store_version: number; stale_route: number; store_recovery: number;
    owner_lease_invalidated: number; relay_notification: number;
  };
  follow: {
    delivered: number; relays: number; notifications_sent: number; notifications_suppressed: number;
    notification_failures: number; rejections_sent: number; frames_dropped: number; frames_foreign_sender: number;
  };
  requests: {
    sent: number; replies: number; errors: number; timeouts: number; cancelled: number; shutdown: number;
    late_results: number; unroutable: number; undecodable_answered: number;
  };
  sessions: { bind_timeouts: number; relays: number; held: number; closed_by_seal_timeout: number };
  relocation: {
    begun: number; restores: number; committed: number; handed_off: number; aborted: number; failed: number;
    held: number; relayed: number; control_refused: number;
  };
  /** The sizes of the runtime's tables now. */
  tables: {
    pending_requests: number; request_deadlines: number; sessions: number; pending_binds: number;
    session_deadlines: number; registrations: number; parked_binds: number; parked_deadlines: number;
    follow_routes: number; follow_deadlines: number; dedup_entries: number; dedup_evictions: number;
    store_flights: number; relocation_sources: number; relocation_targets: number; relocation_deadlines: number;
  };
}

export class ManualClock { constructor(); advance(ms: number): void; nowMs(): number }
export class SystemClock { constructor(); nowMs(): number }
export class MemoryStore { constructor(options?: { clock?: ManualClock | SystemClock; tombstoneRetentionMs?: number }) }
export interface RedisStoreOptions {
  /** Key prefix, no braces (default 'zlink'). */
  prefix?: string;
  /** Deadline for (re)connecting (default 2000). */
  connectTimeoutMs?: number;
  /** Deadline for one command's answer (default 2000). */
  responseTimeoutMs?: number;
  /** How often the server's run id is checked for a restart or failover (default 1000). */
  epochCheckIntervalMs?: number;
  /** How long a released object's tombstone is kept (default 3600000). */
  tombstoneRetentionMs?: number;
  /**
   * Which replicas must acknowledge each authority write before the store reports it done:
   * 'allReplicas' (the default: every replica the deployment is known to have; none on a server
   * without replicas), a number n >= 1 (at least n replicas; more than a primary has rejects with
   * StoreError code 'Config' at connect), or 'primaryOnly' (none: a failover can lose a write the
   * store reported done). A write not acknowledged in time fails with the store Timeout kind (a
   * StoreFailure's error 'Timeout'; from an authority write call, a LifecycleError of code 'Store'):
   * its outcome is unknown, retry it.
   */
  writeAcks?: 'allReplicas' | 'primaryOnly' | number;
  /**
   * How long an authority write waits for its replicas' acknowledgement (default 1000; > 0 unless
   * 'primaryOnly'); at most half of responseTimeoutMs is used.
   */
  writeAckTimeoutMs?: number;
}

export class RedisStore {
  /**
   * Connects off the event loop to `redis://`, `rediss://`, `redis+cluster://h1:p1,h2:p2` or
   * `redis+sentinel://h1:p1,h2:p2/master-name` (`rediss+sentinel://`).
   */
  static connect(url: string, options?: RedisStoreOptions): Promise<RedisStore>;
}

export interface RuntimeOptions {
  config?: Partial<RoutingConfig>;
  store?: MemoryStore | RedisStore;
  clock?: ManualClock | SystemClock;
  workerThreads?: number;
}

export class Runtime {
  constructor(identity: NodeIdentity, options?: RuntimeOptions);
  /** Refuses every later call (ClosedError); work already running finishes. */
  close(): void;
  /** `using rt = new Runtime(...)`: closes it. */
  [Symbol.dispose](): void;
  readonly closed: boolean;
  identity(): { mesh: string; rid: bigint; generation: bigint; lease: bigint };
  config(): Readonly<RoutingConfig>;
  /**
   * Changes the fields given of the config in force (the others keep their values in force); a
   * broken rule throws a ConfigError and changes nothing, a key that is not a field an
   * InputError 'UnknownOption'.
   */
  updateConfig(config: Partial<RoutingConfig>): void;
  /**
   * Many IDs: the hits at once, the misses read as `resolve` reads them; in order. An aborted
   * `signal` rejects with an AbortError.
   */
  resolveMany(kind: Kind, ids: readonly string[], options?: { signal?: AbortSignal }): Promise<Resolution[]>;
  /** A cache hit at once, else a store read off the event loop. An aborted `signal` rejects with an AbortError. */
  resolve(kind: Kind, id: string, options?: { signal?: AbortSignal }): Promise<Resolution>;
  send(kind: Kind, id: string, payload: Bytes, options?: SendOptions): Promise<SendResult>;
  request(kind: Kind, id: string, payload: Bytes, options?: SendOptions): Promise<SendResult>;
  beginRelocation(kind: Kind, id: string, targetRid: bigint | number, targetGeneration: bigint | number,
    options?: { saved?: Operation[]; state?: Bytes }): { identity: RelocationIdentity; send: Outbound[] };
  openSession(session: bigint | number, generation?: bigint | number): SessionRef;
  bind(session: bigint | number, actor: string, route: ActorRoute | RouteEnd): Outbound;
  disconnectSession(session: bigint | number, physical?: boolean): Outbound[];
  boundSessions(actor: string): { session: SessionRef; binding: { generation: bigint; token: bigint } }[];
  /** Every counter: `store_reads`, `resolutions.ready_route`, `follow.relays`, ... */
  stats(): Stats;
  // ---- generated by zlink-schema from bridge/src/surface/operations.rs (`make schema`): do not edit ----
  /**
   * Stops the runtime: later calls fail as closed; calls running finish
   * first. Closing twice is allowed.
   */
  close(): void;
  /**
   * Every metric family, read now (the counters, then the latency
   * histograms), for the host's metrics library.
   */
  metrics(): MetricFamily[];
  /**
   * Every metric in the Prometheus text exposition format: what a scrape
   * of `/metrics` answers.
   */
  metricsText(): string;
  /** Cache only: a recent route, never blocking, never reading the store. */
  lookupCached(kind: ObjectKindName, id: string): ReadyRoute | null;
  /**
   * Cache only, for many IDs of one kind: each one's route or nothing,
   * in order. Never blocks.
   */
  lookupCachedMany(kind: ObjectKindName, ids: readonly string[]): (ReadyRoute | null)[];
  /** Creates a new incarnation owned by this node, in Creating. */
  create(kind: ObjectKindName, id: string): Promise<OwnedObject>;
  /** Publishes this node's Creating object as Ready. */
  publishReady(kind: ObjectKindName, id: string): Promise<OwnedObject>;
  /** Creates, then publishes Ready. */
  activate(kind: ObjectKindName, id: string): Promise<OwnedObject>;
  /** Extends this node's owner lease on the object. */
  renewLease(kind: ObjectKindName, id: string): Promise<OwnedObject>;
  /** Starts releasing: the ID resolves Unavailable (Releasing). */
  beginRelease(kind: ObjectKindName, id: string): Promise<OwnedObject>;
  /** Completes the release: the ID resolves Missing. */
  completeRelease(kind: ObjectKindName, id: string): Promise<void>;
  /** What this node owns for the ID, if anything. */
  owned(kind: ObjectKindName, id: string): OwnedObject | null;
  /** How many objects this node owns. */
  ownedCount(): number;
  /**
   * This node's tenure of an object it owns (what a Message Follow route
   * names, where an ActorRef points), if it owns it.
   */
  ownerRouteEnd(kind: ObjectKindName, id: string): RouteEnd | null;
  /**
   * Decides what to do with one frame that arrived on the connection to
   * node `fromNode` (its routing ID). Never waits on the store: a
   * relocation's store write runs on the store's I/O and its outcome
   * comes from a later `onTimeout`.
   */
  onFrame(fromNode: bigint | number, frame: Bytes): Promise<Inbound>;
  /** Answers a delivered request with `payload`: the frame to carry back. */
  reply(operation: Operation, payload: Bytes): Outbound;
  /**
   * Answers a delivered request with an error: `errorKind` Handler or
   * Decode, an application `code` (0 if left out) and `message`.
   */
  replyError(operation: Operation, errorKind: ReplyErrorKindName, code?: number, message?: string): Outbound;
  /**
   * Reports whether a Relay's notification was sent (every Notice's
   * token comes back here once).
   */
  noticeSettled(token: NoticeToken, sent: boolean): void;
  /**
   * Cancels a pending request: its Completion, or nothing if it had
   * already ended.
   */
  cancel(correlation: bigint | number): Completion | null;
  /** Ends every pending request with Shutdown: their Completions. */
  shutdownRequests(): Completion[];
  /** Requests waiting for their result. */
  pendingRequests(): number;
  /** The runtime's clock now, in nanoseconds: the `now` of `onTimeout`. */
  now(): bigint;
  /**
   * The earliest instant (runtime clock, ns) a deadline needs waking
   * at, if any.
   */
  nextDeadline(): bigint | null;
  /**
   * Runs every deadline due at `now` (ns; the clock's now if left out):
   * their decisions, in order. Never waits on the store.
   */
  onTimeout(now?: bigint | number): Promise<Inbound[]>;
  /**
   * Target: the host built the object from the Restore's state; the
   * relay-ready frames for the source (the point of no return).
   */
  relocationRestored(kind: ObjectKindName, id: string): Outbound[];
  /**
   * Abandons a relocation before relay-ready, on the source (its held
   * work comes back) or on the target.
   */
  abortRelocation(kind: ObjectKindName, id: string): Relocation;
  /** The stored binding route of Actor `actor` in `session`, if any. */
  binding(session: bigint | number, actor: string): BindingRoute | null;
  /**
   * Relays `payload` from `session` to Actor `actor` on the stored
   * route (no lookup).
   */
  sessionSend(session: bigint | number, actor: string, payload: Bytes): SessionSendResult;
  /**
   * Pushes `payload` from Actor `actor` to the bound `session`, if it is
   * registered here.
   */
  push(actor: string, session: SessionRef, payload: Bytes): Outbound | null;
  /** After a lease renewal: a route refresh to every bound Session. */
  refreshSessionRoutes(actor: string): Outbound[];
  /** Drops every binding of Actor `actor` here. */
  forgetBindings(actor: string): void;
  /** Publishes this node's own object-peer descriptor (writes the store). */
  publishDescriptor(endpoint: string, securityIdentity: string): Promise<PeerDescriptor>;
  /** Registers a manually configured endpoint (an intent only). */
  addManualPeer(endpoint: string): void;
  /**
   * Looks up every manual endpoint's descriptor (reads the store): the
   * replacements to perform now.
   */
  connectManualPeers(): Promise<PeerReplacement[]>;
  /**
   * Registers `endpoint` if needed and looks its descriptor up: a
   * replacement to perform now, if any.
   */
  ensureManualPeer(endpoint: string): Promise<PeerReplacement | null>;
  /** The transport connected `endpoint`; its handshake showed `rid`. */
  peerOpened(endpoint: string, rid: bigint | number): void;
  /**
   * The transport confirmed `endpoint` closed: a waiting replacement is
   * installed and returned.
   */
  peerClosed(endpoint: string): PeerReplacement | null;
  /** The intent, observed routing ID and close state of `endpoint`. */
  peerIntent(endpoint: string): PeerIntent | null;
  /** Where to reach node `rid`, only through an installed descriptor. */
  peerEndpoint(rid: bigint | number): string | null;
  /** `onFrame` behind a manual peer connection's admission fence. */
  onPeerFrame(endpoint: string, frame: Bytes): Promise<Inbound>;
  /**
   * The lifecycle `lease` of node `node` ended: drops its cached routes;
   * how many.
   */
  onOwnerLeaseInvalidated(node: bigint | number, lease: bigint | number): number;
  /**
   * A store recovery the host observed: clears the route cache; how many
   * routes it dropped.
   */
  onStoreRecovery(): number;
  // ---- end of the generated operations ----
}

/** The strict frame codec: a frame's command name, its JSON description, its bytes encoded again. */
export const wire: {
  decode(data: Bytes, limits?: { maxObjectIdBytes?: number; maxPayloadBytes?: number; maxStateBytes?: number }):
    { command: string; description: unknown; bytes: Buffer };
};

/** `T` as `toJSON` gives it: bigints and byte arrays as strings. */
export type Json<T> =
  T extends bigint ? string
  : T extends Uint8Array ? string
  : T extends readonly (infer U)[] ? Json<U>[]
  : T extends object ? { [K in keyof T]: Json<T[K]> }
  : T;

/**
 * `value` as plain JSON data: bigints as decimal strings, Buffers and Uint8Arrays (payloads,
 * frames, tokens) as base64 strings (`JSON.parse(JSON.stringify(value, jsonReplacer))`).
 */
export function toJSON<T>(value: T): Json<T>;

/**
 * A replacer for `JSON.stringify(value, jsonReplacer)`: bigints as decimal strings, Buffers and
 * Uint8Arrays as base64 strings. Nothing global is patched.
 */
export function jsonReplacer(this: unknown, key: string, value: unknown): unknown;

/** The core's log records, on the event loop; `null` stops. */
export function onLog(callback: ((record: { level: string; target: string; message: string }) => void) | null,
  level?: 'error' | 'warn' | 'info' | 'debug' | 'trace'): void;

/** Every zlink error: `code` is the cause's stable name (e.g. 'EmptyObjectId'). */
export class ZlinkError extends Error { readonly code: string }
export class InputError extends ZlinkError {}
export class ConfigError extends ZlinkError {}
export class StoreError extends ZlinkError {}
export class LifecycleError extends ZlinkError {}
export class WireError extends ZlinkError {}
export class ReplyRouteError extends ZlinkError {}
export class SessionError extends ZlinkError {}
export class RelocationError extends ZlinkError {}
export class ClosedError extends ZlinkError {}
export class ForkedRuntimeError extends ZlinkError {}
/**
 * What a call whose `signal` aborted rejects with: `code` 'Aborted', `name` 'AbortError', the
 * signal's reason as `cause`.
 */
export class AbortError extends ZlinkError { readonly code: 'Aborted' }
