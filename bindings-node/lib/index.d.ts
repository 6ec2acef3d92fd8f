/// <reference types="node" />
// Types of the `zlink` package. 64-bit IDs and generations are bigints;
// milliseconds are numbers; payloads and frames are Buffers.

import type { LivenessName, ObjectKindName, ReplyErrorKindName, UnavailableReasonName } from './codes';

import type {
  ActorRoute, BindingRoute, Completion, Inbound, NodeRef, Outbound, OwnedObject, ReadyRoute,
  RelocationIdentity, Resolution, RouteEnd, RouteFence, SendResult, SessionRef, SessionSendResult,
} from './surface';

// The result types of the bridge's surface (surface.d.ts) and the closed
// sets' names (codes.d.ts) are generated from the bridge.
export * from './surface';

export type Kind = ObjectKindName;

export type UnavailableReason = UnavailableReasonName;

export interface SendOptions {
  instanceIntent?: boolean; deadlineMs?: number; timeoutMs?: number;
  origin?: { spot: string; objectGeneration: bigint | number };
}

/** A delivered Message or Request; give it back to `reply` or `beginRelocation({ saved })`. */
export interface Operation {
  operationId: bigint; objectKind: Kind; id: string; payload: Buffer; origin: NodeRef;
  fence: RouteFence; hopCount: number; objectGeneration: bigint; correlation: bigint | null;
  isRequest: boolean;
  /** The operation's frame, as the runtime gave it (not enumerable). */
  readonly frame: Buffer;
}

/** Identifies a Relay's command 50 notification: give it to `noticeSettled`. */
export type NoticeToken = Buffer;

export interface PeerDescriptor { endpoint: string; rid: bigint; lifecycleGeneration: bigint; securityIdentity: string }
export interface PeerReplacement { descriptor: PeerDescriptor }
export interface PeerIntent {
  endpoint: string; installed: PeerDescriptor | null; liveness: LivenessName;
  observedRid: bigint | null; pending: PeerDescriptor | null;
}
type Bytes = Buffer | Uint8Array | string;

export interface NodeIdentity { mesh: string; rid: bigint | number; generation?: bigint | number; lease?: bigint | number }

export interface RoutingConfig {
  routeCacheMaxAge: number; messageFollowDuration: number; maxFollowHops: number;
  sessionRelocationSealTimeout: number; sessionBindTimeout: number; routeCacheCapacity: number;
  ownerLeaseDuration: number; storeTimeout: number; storeAttempts: number; maxObjectIdBytes: number;
  maxMessageBytes: number; relocationTimeout: number; maxRelocationStateBytes: number;
}

/** The routing settings, checked: a broken rule throws a ConfigError naming it. */
export function routingConfig(fields?: Partial<RoutingConfig>): Readonly<RoutingConfig>;

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
  /** Replaces the config in force; a broken rule throws a ConfigError and changes nothing. */
  updateConfig(config: Partial<RoutingConfig>): void;
  /** Cache only: never blocks, never reads the store. */
  lookupCached(kind: Kind, id: string): ReadyRoute | null;
  /** Cache only, for many IDs: each one's route or null, in order. Never blocks. */
  lookupCachedMany(kind: Kind, ids: readonly string[]): (ReadyRoute | null)[];
  /** Many IDs: the hits at once, the misses read as `resolve` reads them; in order. */
  resolveMany(kind: Kind, ids: readonly string[], options?: { signal?: AbortSignal }): Promise<Resolution[]>;
  /** A cache hit at once, else a store read off the event loop. */
  resolve(kind: Kind, id: string, options?: { signal?: AbortSignal }): Promise<Resolution>;
  create(kind: Kind, id: string): Promise<OwnedObject>;
  publishReady(kind: Kind, id: string): Promise<OwnedObject>;
  activate(kind: Kind, id: string): Promise<OwnedObject>;
  renewLease(kind: Kind, id: string): Promise<OwnedObject>;
  beginRelease(kind: Kind, id: string): Promise<OwnedObject>;
  completeRelease(kind: Kind, id: string): Promise<void>;
  ownedCount(): number;
  owned(kind: Kind, id: string): OwnedObject | null;
  ownerRouteEnd(kind: Kind, id: string): RouteEnd | null;
  send(kind: Kind, id: string, payload: Bytes, options?: SendOptions): Promise<SendResult>;
  request(kind: Kind, id: string, payload: Bytes, options?: SendOptions): Promise<SendResult>;
  onFrame(fromNode: bigint | number, frame: Bytes): Promise<Inbound>;
  reply(operation: Operation, payload: Bytes): Outbound;
  replyError(operation: Operation, errorKind: ReplyErrorKindName, code?: number, message?: string): Outbound;
  noticeSettled(token: Buffer, sent: boolean): void;
  cancel(correlation: bigint | number): Completion | null;
  shutdownRequests(): Completion[];
  pendingRequests(): number;
  now(): bigint;
  nextDeadline(): bigint | null;
  onTimeout(now?: bigint | number): Promise<Inbound[]>;
  beginRelocation(kind: Kind, id: string, targetRid: bigint | number, targetGeneration?: bigint | number,
    options?: { saved?: Operation[]; state?: Bytes }): { identity: RelocationIdentity; send: Outbound[] };
  relocationRestored(kind: Kind, id: string): Outbound[];
  abortRelocation(kind: Kind, id: string): Inbound;
  openSession(session: bigint | number, generation?: bigint | number): SessionRef;
  bind(session: bigint | number, actor: string, route: ActorRoute | RouteEnd): Outbound;
  binding(session: bigint | number, actor: string): BindingRoute | null;
  sessionSend(session: bigint | number, actor: string, payload: Bytes): SessionSendResult;
  disconnectSession(session: bigint | number, physical?: boolean): Outbound[];
  push(actor: string, session: SessionRef, payload: Bytes): Outbound | null;
  boundSessions(actor: string): { session: SessionRef; binding: { generation: bigint; token: bigint } }[];
  refreshSessionRoutes(actor: string): Outbound[];
  forgetBindings(actor: string): void;
  publishDescriptor(endpoint: string, securityIdentity: string): Promise<PeerDescriptor>;
  addManualPeer(endpoint: string): void;
  connectManualPeers(): Promise<PeerReplacement[]>;
  ensureManualPeer(endpoint: string): Promise<PeerReplacement | null>;
  peerOpened(endpoint: string, rid: bigint | number): void;
  peerClosed(endpoint: string): PeerReplacement | null;
  peerIntent(endpoint: string): PeerIntent | null;
  peerEndpoint(rid: bigint | number): string | null;
  onPeerFrame(endpoint: string, frame: Bytes): Promise<Inbound>;
  onOwnerLeaseInvalidated(node: bigint | number, lease: bigint | number): number;
  onStoreRecovery(): number;
  /** Counters: `store_reads`, `resolutions.ready_route`, ... */
  stats(): Record<string, number | Record<string, number>>;
}

/** The strict frame codec: a frame's command name, its JSON description, its bytes encoded again. */
export const wire: {
  decode(data: Bytes, limits?: { maxObjectIdBytes?: number; maxPayloadBytes?: number; maxStateBytes?: number }):
    { command: string; description: unknown; bytes: Buffer };
};

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
