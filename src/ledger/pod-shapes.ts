/**
 * What pods share, hash-consed (hash-cons.ts) and held by id in the pod store's columns: a pod's effective requests
 * (`RequestShape`), its label set (`LabelSet`), and the parts of a bound pod that preemption and DRA read
 * (`BoundPodParts`, which most pods do not have). The thousands of pods of one workload hold one of each.
 */
import type { Interned } from './hash-cons.js';
import type { NumericDemand, ResourceIds } from './numeric-amounts.js';
import type { PodObject } from './objects.js';
import { hashText, hashWord } from './packed-fields.js';

/** NonZeroRequested cpu (millicores) and memory (bytes): the scoring variant of the requests (pod-entry.ts). */
export interface NonZeroRequests {
  readonly cpu: number;
  readonly memory: number;
}

/** Amounts by resource id as parallel arrays. */
export interface RowAmounts {
  readonly ids: readonly number[];
  readonly values: readonly number[];
}

const TWO_32 = 2 ** 32;

/** Mixes a number into a hash: its low and high 32 bits (the same number always hashes the same). */
function hashNumber(hash: number, value: number): number {
  return hashWord(hashWord(hash, value % TWO_32), Math.floor(value / TWO_32));
}

/**
 * A pod's effective requests and NonZeroRequested share, held as one text (`name=amount` lines, in the requests'
 * order): exact, and a fraction of a map of bigints. Read back as a map, or as float64 rows for the node table.
 */
export class RequestShape implements Interned {
  refs = 0;
  id = -1;
  readonly hash: number;
  readonly text: string;
  /**
   * The requests by resource id as the kernels read them (`numericRequestsOf`), for the ids last asked for: derived
   * from `text` alone, so every view of every pod of this shape shares it instead of deriving it again.
   */
  numeric: NumericDemand | undefined = undefined;
  private nonZeroPair: NonZeroRequests | undefined = undefined;

  constructor(requests: ReadonlyMap<string, bigint>, readonly nonZeroCpu: number, readonly nonZeroMemory: number) {
    let text = '';
    for (const [name, amount] of requests) text += `${text === '' ? '' : '\n'}${name}=${amount}`;
    this.text = text;
    this.hash = hashNumber(hashNumber(hashText(text), nonZeroCpu), nonZeroMemory);
  }

  /** NonZeroRequested cpu and memory as one object, shared by the views of every pod of this shape. */
  get nonZero(): NonZeroRequests {
    return (this.nonZeroPair ??= { cpu: this.nonZeroCpu, memory: this.nonZeroMemory });
  }

  /** The exact requests, as a new map. */
  requests(): Map<string, bigint> {
    const amounts = new Map<string, bigint>();
    this.each((name, amount) => amounts.set(name, BigInt(amount)));
    return amounts;
  }

  /**
   * Every amount as float64 by resource id, for moving a node's rows in place; undefined when an amount is beyond
   * ±2^53 (or NonZeroRequested is not a safe integer): the node's rows are then rewritten from the exact totals.
   */
  rows(resources: ResourceIds): RowAmounts | undefined {
    if (!Number.isSafeInteger(this.nonZeroCpu) || !Number.isSafeInteger(this.nonZeroMemory)) return undefined;
    const ids: number[] = [];
    const values: number[] = [];
    let exact = true;
    this.each((name, amount) => {
      const value = Number(amount);
      if (!Number.isSafeInteger(value)) exact = false;
      ids.push(resources.idOf(name));
      values.push(value);
    });
    return exact ? { ids, values } : undefined;
  }

  private each(visit: (name: string, amount: string) => void): void {
    const text = this.text;
    for (let start = 0; start < text.length;) {
      const end = text.indexOf('\n', start);
      const line = end < 0 ? text.length : end;
      const equals = text.indexOf('=', start);
      visit(text.slice(start, equals), text.slice(equals + 1, line));
      start = line + 1;
    }
  }
}

export function sameRequests(a: RequestShape, b: RequestShape): boolean {
  return a.text === b.text && a.nonZeroCpu === b.nonZeroCpu && a.nonZeroMemory === b.nonZeroMemory;
}

/** A pod's labels, shared by every pod with the same labels in the same order. */
export class LabelSet implements Interned {
  refs = 0;
  id = -1;
  readonly hash: number;

  constructor(readonly labels: Readonly<Record<string, string>>) {
    let hash = 0x811c9dc5;
    for (const [key, value] of Object.entries(labels)) hash = hashText(String(value), hashText(key, hash));
    this.hash = hash;
  }
}

export function sameLabels(a: LabelSet, b: LabelSet): boolean {
  const entries = Object.entries(a.labels);
  const others = Object.entries(b.labels);
  return entries.length === others.length && entries.every(([key, value], i) => others[i]?.[0] === key && others[i]?.[1] === value);
}

/**
 * What a bound pod keeps of its spec and status beyond its columns: what preemption reads to prove a victim irrelevant
 * to other filters (host ports, required pod (anti-)affinity, storage volumes, claims; victim-relevance.ts) and what
 * explaining a bound pod with claims reads (its claims and their statuses). Most pods have none of these.
 */
export class BoundPodParts implements Interned {
  refs = 0;
  id = -1;
  readonly hash: number;

  constructor(readonly spec: Readonly<NonNullable<PodObject['spec']>>, readonly status: Readonly<NonNullable<PodObject['status']>>) {
    this.hash = hashText(JSON.stringify([spec, status]));
  }
}

export function sameParts(a: BoundPodParts, b: BoundPodParts): boolean {
  return sameJson(a.spec, b.spec) && sameJson(a.status, b.status);
}

/** Structural equality of JSON values, object keys in the same order (as JSON.stringify would compare them). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const entries = Object.entries(a);
  const others = Object.entries(b);
  return entries.length === others.length && entries.every(([key, value], i) => others[i]?.[0] === key && sameJson(value, others[i]?.[1]));
}

/** The parts of a bound pod's trimmed object that `BoundPodParts` keeps; undefined when it has none. */
export function boundPartsOf(pod: PodObject): BoundPodParts | undefined {
  const spec = keptSpec(pod.spec ?? {});
  const status = keptStatus(pod.status ?? {});
  if (Object.keys(spec).length === 0 && Object.keys(status).length === 0) return undefined;
  return new BoundPodParts(spec, status);
}

type PodSpec = NonNullable<PodObject['spec']>;

function keptSpec(spec: PodSpec): PodSpec {
  const kept: PodSpec = {};
  if (spec.resourceClaims !== undefined) kept.resourceClaims = spec.resourceClaims;
  const { podAffinity, podAntiAffinity } = spec.affinity ?? {};
  if (podAffinity !== undefined || podAntiAffinity !== undefined) {
    kept.affinity = {};
    if (podAffinity !== undefined) kept.affinity.podAffinity = podAffinity;
    if (podAntiAffinity !== undefined) kept.affinity.podAntiAffinity = podAntiAffinity;
  }
  if (spec.volumes !== undefined) kept.volumes = spec.volumes;
  const portHolders = [...(spec.containers ?? []), ...(spec.initContainers ?? [])]
    .flatMap((c) => (c.ports !== undefined && c.ports.length > 0 ? [{ name: c.name, ports: c.ports }] : []));
  if (portHolders.length > 0) kept.containers = portHolders;
  return kept;
}

function keptStatus(status: NonNullable<PodObject['status']>): NonNullable<PodObject['status']> {
  const kept: NonNullable<PodObject['status']> = {};
  if (status.resourceClaimStatuses !== undefined) kept.resourceClaimStatuses = status.resourceClaimStatuses;
  if (status.nodeAllocatableResourceClaimStatuses !== undefined) kept.nodeAllocatableResourceClaimStatuses = status.nodeAllocatableResourceClaimStatuses;
  if (status.extendedResourceClaimStatus !== undefined) kept.extendedResourceClaimStatus = status.extendedResourceClaimStatus;
  return kept;
}
