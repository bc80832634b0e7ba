/**
 * Request-level fault state of the fake, changeable at runtime. The server consults it for every request; the watch
 * hub consults it for 410s and stalls. Resource names are plural ("pods") or qualified ("leases.coordination.k8s.io");
 * omitting the resource means every resource.
 */
import { matchesRequest, type RequestInfo, type RequestMatcher } from './request-info.js';
import { qualifiedResource, type ResourceType } from './resources.js';

export interface FailureFault {
  /** HTTP status to answer with; 429 and 503 carry a Retry-After header. Default 500. */
  status?: number;
  matcher?: RequestMatcher;
  /** Retry-After seconds for 429/503. Default 1. */
  retryAfterSeconds?: number;
  message?: string;
}

export interface DelayFault {
  matcher?: RequestMatcher;
  ms: number;
  /** How many matching requests to delay; unlimited when omitted. */
  times?: number;
}

interface Counted<T> { remaining: number; fault: T }

/** How the server treats a watch-list (`sendInitialEvents`): as 1.32+ does, as a server that ignores it, or refuses it. */
export type WatchListSupport = 'supported' | 'ignored' | 'refused';

const EVERY_RESOURCE = '*';

function resourceKey(resource: string | undefined): string {
  return resource ?? EVERY_RESOURCE;
}

function appliesTo(key: string, type: ResourceType): boolean {
  return key === EVERY_RESOURCE || key === type.resource || key === qualifiedResource(type);
}

export class FaultState {
  private readonly failures: Array<Counted<Required<Pick<FailureFault, 'status' | 'retryAfterSeconds'>> & FailureFault>> = [];
  private readonly delays: Array<Counted<DelayFault>> = [];
  private readonly conflicts: Array<Counted<RequestMatcher | undefined>> = [];
  private readonly expiring = new Set<string>();
  private readonly stalls = new Map<string, number>();
  private readonly blackHoles: Array<Counted<RequestMatcher | undefined>> = [];
  private readonly watchLags = new Map<string, number>();
  private readonly endless = new Set<string>();
  private readonly rewound = new Map<string, bigint>();
  private readonly smuggled = new Map<string, object[]>();
  /** How watch-lists are answered (every resource). */
  watchList: WatchListSupport = 'supported';

  /** While on, every list page of the resource is new objects with a new continue token: a list that never ends. */
  endlessList(resource: string | undefined, on: boolean): void {
    if (on) this.endless.add(resourceKey(resource));
    else this.endless.delete(resourceKey(resource));
  }

  isEndless(type: ResourceType): boolean {
    return [...this.endless].some((key) => appliesTo(key, type));
  }

  /** Watches from a resourceVersion at or below `through` answer 504 "Too large resource version". */
  rewind(resource: string | undefined, through: bigint): void {
    this.rewound.set(resourceKey(resource), through);
  }

  /** Whether a watch from `rv` must answer "too large" (see `rewind`). */
  isRewound(type: ResourceType, rv: bigint): boolean {
    for (const [key, through] of this.rewound) if (appliesTo(key, type) && rv <= through) return true;
    return false;
  }

  /** Objects served as if they were of the resource: on the first page of its lists (see `smuggle` on the server). */
  smuggle(resource: string, objects: object[]): void {
    this.smuggled.set(resource, [...(this.smuggled.get(resource) ?? []), ...objects]);
  }

  smuggledInto(type: ResourceType): object[] {
    return [...this.smuggled].filter(([key]) => appliesTo(key, type)).flatMap(([, objects]) => objects);
  }

  /** The next `count` matching requests are read and then never answered. Returns a function that lifts it. */
  blackHole(count: number, matcher?: RequestMatcher): () => void {
    const entry = { remaining: count, fault: matcher };
    this.blackHoles.push(entry);
    return () => {
      entry.remaining = 0;
    };
  }

  takeBlackHole(info: RequestInfo): boolean {
    const entry = this.blackHoles.find((b) => b.remaining > 0 && matchesRequest(b.fault, info));
    if (entry === undefined) return false;
    entry.remaining -= 1;
    return true;
  }

  /** Every watch event (bookmarks included) of the resource is delivered `ms` late; 0 lifts it. */
  slowWatch(resource: string | undefined, ms: number): void {
    if (ms > 0) this.watchLags.set(resourceKey(resource), ms);
    else this.watchLags.delete(resourceKey(resource));
  }

  watchLagMs(type: ResourceType): number {
    let lag = 0;
    for (const [key, ms] of this.watchLags) if (appliesTo(key, type)) lag = Math.max(lag, ms);
    return lag;
  }

  failNext(count: number, fault: FailureFault = {}): void {
    this.failures.push({ remaining: count, fault: { ...fault, status: fault.status ?? 500, retryAfterSeconds: fault.retryAfterSeconds ?? 1 } });
  }

  /** Returns a function that removes this delay. */
  delay(fault: DelayFault): () => void {
    const entry = { remaining: fault.times ?? Number.POSITIVE_INFINITY, fault };
    this.delays.push(entry);
    return () => {
      entry.remaining = 0;
    };
  }

  clearConflicts(): void {
    this.conflicts.length = 0;
  }

  conflictNext(count: number, matcher?: RequestMatcher): void {
    this.conflicts.push({ remaining: count, fault: matcher });
  }

  always410(resource: string | undefined, on: boolean): void {
    if (on) this.expiring.add(resourceKey(resource));
    else this.expiring.delete(resourceKey(resource));
  }

  stall(resource: string | undefined, until: number): void {
    this.stalls.set(resourceKey(resource), until);
  }

  clear(): void {
    this.failures.length = 0;
    this.delays.length = 0;
    this.conflicts.length = 0;
    this.expiring.clear();
    this.stalls.clear();
    this.blackHoles.length = 0;
    this.watchLags.clear();
    this.endless.clear();
    this.rewound.clear();
    this.smuggled.clear();
    this.watchList = 'supported';
  }

  /** Total delay for this request; consumes one use of each matching delay. */
  takeDelay(info: RequestInfo): number {
    let total = 0;
    for (const entry of this.delays) {
      if (entry.remaining <= 0 || !matchesRequest(entry.fault.matcher, info)) continue;
      entry.remaining -= 1;
      total += entry.fault.ms;
    }
    return total;
  }

  takeFailure(info: RequestInfo): (FailureFault & { status: number; retryAfterSeconds: number }) | undefined {
    const entry = this.failures.find((f) => f.remaining > 0 && matchesRequest(f.fault.matcher, info));
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    return entry.fault;
  }

  /** Conflict storms hit writes that carry preconditions in practice: update, patch, and create/delete. */
  takeConflict(info: RequestInfo): boolean {
    if (!['update', 'patch', 'create', 'delete'].includes(info.verb)) return false;
    const entry = this.conflicts.find((c) => c.remaining > 0 && matchesRequest(c.fault, info));
    if (entry === undefined) return false;
    entry.remaining -= 1;
    return true;
  }

  isExpiring(type: ResourceType): boolean {
    return [...this.expiring].some((key) => appliesTo(key, type));
  }

  /** Milliseconds until the watch stall covering this resource ends; 0 when not stalled. */
  stallRemaining(type: ResourceType, now: number): number {
    let remaining = 0;
    for (const [key, until] of this.stalls) if (appliesTo(key, type)) remaining = Math.max(remaining, until - now);
    return remaining;
  }
}
