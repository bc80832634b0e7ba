/**
 * What pods share, hash-consed (hash-cons.ts) and held by id in the pod store's columns: a pod's effective requests
 * (`RequestShape`), its label set (`LabelSet`), and the parts of a bound pod that preemption and DRA read
 * (`BoundPodParts`, which most pods do not have). The thousands of pods of one workload hold one of each.
 */
import type { Interned } from './hash-cons.js';
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

const scratch = new Float64Array(1);
const scratchWords = new Uint32Array(scratch.buffer);

function hashNumber(hash: number, value: number): number {
  scratch[0] = value;
  return hashWord(hashWord(hash, scratchWords[0]!), scratchWords[1]!);
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

  constructor(requests: ReadonlyMap<string, bigint>, readonly nonZeroCpu: number, readonly nonZeroMemory: number) {
    let text = '';
    for (const [name, amount] of requests) text += `${text === '' ? '' : '\n'}${name}=${amount}`;
    this.text = text;
    this.hash = hashNumber(hashNumber(hashText(text), nonZeroCpu), nonZeroMemory);
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
  rows(resourceId: (name: string) => number): RowAmounts | undefined {
    if (!Number.isSafeInteger(this.nonZeroCpu) || !Number.isSafeInteger(this.nonZeroMemory)) return undefined;
    const ids: number[] = [];
    const values: number[] = [];
    let exact = true;
    this.each((name, amount) => {
      const value = Number(amount);
      if (!Number.isSafeInteger(value)) exact = false;
      ids.push(resourceId(name));
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
    for (const key of Object.keys(labels)) hash = hashText(String(labels[key]), hashText(key, hash));
    this.hash = hash;
  }
}

export function sameLabels(a: LabelSet, b: LabelSet): boolean {
  const keys = Object.keys(a.labels);
  const otherKeys = Object.keys(b.labels);
  if (keys.length !== otherKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (otherKeys[i] !== key || a.labels[key] !== b.labels[key]) return false;
  }
  return true;
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
  const keys = Object.keys(a);
  const otherKeys = Object.keys(b);
  if (keys.length !== otherKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (otherKeys[i] !== key || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** The parts of a bound pod's trimmed object that `BoundPodParts` keeps; undefined when it has none. */
export function boundPartsOf(pod: PodObject): BoundPodParts | undefined {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const keptSpec: NonNullable<PodObject['spec']> = {};
  if (spec.resourceClaims !== undefined) keptSpec.resourceClaims = spec.resourceClaims;
  const affinity = spec.affinity;
  if (affinity?.podAffinity !== undefined || affinity?.podAntiAffinity !== undefined) {
    keptSpec.affinity = {};
    if (affinity.podAffinity !== undefined) keptSpec.affinity.podAffinity = affinity.podAffinity;
    if (affinity.podAntiAffinity !== undefined) keptSpec.affinity.podAntiAffinity = affinity.podAntiAffinity;
  }
  if (spec.volumes !== undefined) keptSpec.volumes = spec.volumes;
  const portHolders = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].filter((c) => c.ports !== undefined && c.ports.length > 0);
  if (portHolders.length > 0) keptSpec.containers = portHolders.map((c) => ({ name: c.name, ports: c.ports! }));
  const keptStatus: NonNullable<PodObject['status']> = {};
  if (status.resourceClaimStatuses !== undefined) keptStatus.resourceClaimStatuses = status.resourceClaimStatuses;
  if (status.nodeAllocatableResourceClaimStatuses !== undefined) keptStatus.nodeAllocatableResourceClaimStatuses = status.nodeAllocatableResourceClaimStatuses;
  if (status.extendedResourceClaimStatus !== undefined) keptStatus.extendedResourceClaimStatus = status.extendedResourceClaimStatus;
  if (Object.keys(keptSpec).length === 0 && Object.keys(keptStatus).length === 0) return undefined;
  return new BoundPodParts(keptSpec, keptStatus);
}
