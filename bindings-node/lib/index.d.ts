// Types of the `zlink` package (the first slice of the Node binding:
// runtimes, resolution, lifecycle writes; frames, sessions, relocation and
// peers come next). 64-bit IDs and generations are bigints; milliseconds are
// numbers.

export type Kind = 'spot' | 'actor';

export interface RouteFence {
  objectGeneration: bigint;
  authorityOwnerGeneration: bigint;
  ownerLeaseGeneration: bigint;
  nodeGeneration: bigint;
  storeVersion: bigint;
}

export interface ReadyRoute { kind: 'ReadyRoute'; mesh: string; node: bigint; fence: RouteFence; admissionDeadlineMs: number }
export interface Missing { kind: 'Missing' }
export type UnavailableReason = 'Creating' | 'Releasing' | 'LeaseExpired' | 'OwnerNotLive' | 'StaleRoute'
  | 'AdmissionDeadlinePassed' | 'FollowHopLimit' | 'RelocationFailed';
export interface Unavailable { kind: 'Unavailable'; reason: UnavailableReason }
export interface StoreFailure { kind: 'StoreFailure'; error: 'Timeout' | 'Unreachable' | 'Config' | 'Protocol'; message: string }
/** The resolver's four closed results. */
export type Resolution = ReadyRoute | Missing | Unavailable | StoreFailure;

export interface OwnedObject {
  state: 'creating' | 'ready' | 'releasing';
  objectGeneration: bigint;
  authorityOwnerGeneration: bigint;
  leaseGeneration: bigint;
  storeVersion: bigint;
  admissionDeadlineMs: number;
}

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

export interface RuntimeOptions {
  config?: Partial<RoutingConfig>;
  store?: MemoryStore;
  clock?: ManualClock | SystemClock;
  workerThreads?: number;
}

export class Runtime {
  constructor(identity: NodeIdentity, options?: RuntimeOptions);
  /** Refuses every later call (ClosedError); work already running finishes. */
  close(): void;
  readonly closed: boolean;
  identity(): { mesh: string; rid: bigint; generation: bigint; lease: bigint };
  config(): Readonly<RoutingConfig>;
  /** Cache only: never blocks, never reads the store. */
  lookupCached(kind: Kind, id: string): ReadyRoute | null;
  /** A cache hit at once, else a store read off the event loop. */
  resolve(kind: Kind, id: string, options?: { signal?: AbortSignal }): Promise<Resolution>;
  create(kind: Kind, id: string): Promise<OwnedObject>;
  publishReady(kind: Kind, id: string): Promise<OwnedObject>;
  activate(kind: Kind, id: string): Promise<OwnedObject>;
  renewLease(kind: Kind, id: string): Promise<OwnedObject>;
  beginRelease(kind: Kind, id: string): Promise<OwnedObject>;
  completeRelease(kind: Kind, id: string): Promise<void>;
  ownedCount(): number;
  /** Counters: `store_reads`, `resolutions.ready_route`, ... */
  stats(): Record<string, number | Record<string, number>>;
}

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
