/**
 * What pods share, hash-consed (hash-cons.ts): a pod's effective requests with their numeric rows (`RequestShape`),
 * its label set, the parts of a bound pod that preemption and DRA read (`BoundPodParts`), and the combination of
 * these with priority, phase and termination (`PodShape`). A pod's columns hold one `PodShape`; the thousands of pods
 * of one workload hold the same one.
 */
import { HashConsTable, type Interned } from './hash-cons.js';
import { numericDemand, resourceId, type NumericDemand } from './numeric-amounts.js';
import type { PodObject } from './objects.js';
import { hashText, hashWord } from './packed-fields.js';

/** NonZeroRequested cpu (millicores) and memory (bytes): the scoring variant of the requests (pod-entry.ts). */
export interface NonZeroRequests {
  readonly cpu: number;
  readonly memory: number;
}

const MAX_EXACT = 9007199254740991n;
const scratch = new Float64Array(1);
const scratchWords = new Uint32Array(scratch.buffer);

function hashNumber(hash: number, value: number): number {
  scratch[0] = value;
  return hashWord(hashWord(hash, scratchWords[0]!), scratchWords[1]!);
}

/** A pod's effective requests (exact), their float64 rows for the node table, and its NonZeroRequested share. */
export class RequestShape implements Interned {
  refs = 0;
  readonly hash: number;
  private numericDemand: NumericDemand | undefined;
  /** Null once found beyond float64 exactness. */
  private exactRows: RowAmounts | null | undefined;

  constructor(readonly requests: ReadonlyMap<string, bigint>, readonly nonZero: NonZeroRequests) {
    let hash = hashNumber(hashNumber(0x811c9dc5, nonZero.cpu), nonZero.memory);
    for (const [name, amount] of requests) hash = hashNumber(hashText(name, hash), Number(amount));
    this.hash = hash;
  }

  /** Positive amounts without `pods`, by resource id: what the fit kernel compares. */
  get numeric(): NumericDemand {
    return (this.numericDemand ??= numericDemand(this.requests, 'pods'));
  }

  /**
   * Every amount as float64 by resource id, for moving a node's rows in place; undefined when an amount is beyond
   * ±2^53 (or NonZeroRequested is not a safe integer): the node's rows are then rewritten from the exact totals.
   */
  rows(): RowAmounts | undefined {
    if (this.exactRows === undefined) this.exactRows = exactRowsOf(this.requests, this.nonZero);
    return this.exactRows ?? undefined;
  }
}

/** Amounts by resource id as parallel arrays. */
export interface RowAmounts {
  readonly ids: readonly number[];
  readonly values: readonly number[];
}

function exactRowsOf(requests: ReadonlyMap<string, bigint>, nonZero: NonZeroRequests): RowAmounts | null {
  if (!Number.isSafeInteger(nonZero.cpu) || !Number.isSafeInteger(nonZero.memory)) return null;
  const ids: number[] = [];
  const values: number[] = [];
  for (const [name, amount] of requests) {
    if (amount > MAX_EXACT || amount < -MAX_EXACT) return null;
    ids.push(resourceId(name));
    values.push(Number(amount));
  }
  return { ids, values };
}

function sameRequests(a: RequestShape, b: RequestShape): boolean {
  if (a.nonZero.cpu !== b.nonZero.cpu || a.nonZero.memory !== b.nonZero.memory || a.requests.size !== b.requests.size) return false;
  const other = b.requests.entries();
  for (const [name, amount] of a.requests) {
    const next = other.next().value as [string, bigint];
    if (next[0] !== name || next[1] !== amount) return false;
  }
  return true;
}

/** A pod's labels, shared by every pod with the same labels in the same order. */
export class LabelSet implements Interned {
  refs = 0;
  readonly hash: number;

  constructor(readonly labels: Readonly<Record<string, string>>) {
    let hash = 0x811c9dc5;
    for (const key of Object.keys(labels)) hash = hashText(String(labels[key]), hashText(key, hash));
    this.hash = hash;
  }
}

function sameLabels(a: LabelSet, b: LabelSet): boolean {
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
  readonly hash: number;

  constructor(readonly spec: Readonly<NonNullable<PodObject['spec']>>, readonly status: Readonly<NonNullable<PodObject['status']>>) {
    this.hash = hashText(JSON.stringify([spec, status]));
  }
}

function sameParts(a: BoundPodParts, b: BoundPodParts): boolean {
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
function boundPartsOf(pod: PodObject): BoundPodParts | undefined {
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

/** Everything of a pod that many pods share: one object per distinct combination. */
export class PodShape implements Interned {
  refs = 0;
  readonly hash: number;

  constructor(
    readonly priority: number,
    readonly phase: string,
    readonly terminating: boolean,
    readonly requests: RequestShape,
    readonly labels: LabelSet | undefined,
    readonly parts: BoundPodParts | undefined,
  ) {
    let hash = hashText(phase, hashNumber(requests.hash, priority));
    hash = hashWord(hash, terminating ? 1 : 0);
    hash = hashWord(hash, labels?.hash ?? 0);
    this.hash = hashWord(hash, parts?.hash ?? 0);
  }
}

function sameShape(a: PodShape, b: PodShape): boolean {
  return a.priority === b.priority && a.phase === b.phase && a.terminating === b.terminating && a.requests === b.requests
    && a.labels === b.labels && a.parts === b.parts;
}

/** The ledger's shared pod shapes: one per distinct combination, counted by the pods that hold it. */
export class PodShapes {
  private readonly requestShapes = new HashConsTable<RequestShape>(sameRequests);
  private readonly labelSets = new HashConsTable<LabelSet>(sameLabels);
  private readonly partSets = new HashConsTable<BoundPodParts>(sameParts);
  private readonly shapes = new HashConsTable<PodShape>(sameShape);

  /** The shape of a pod whose requests are computed; `bound`: keep the parts a bound pod's readers need. */
  shapeOf(pod: PodObject, requests: ReadonlyMap<string, bigint>, nonZero: NonZeroRequests, bound: boolean): PodShape {
    const requestShape = this.requestShapes.intern(new RequestShape(requests, nonZero));
    const labels = pod.metadata.labels;
    const labelSet = labels === undefined ? undefined : this.labelSets.intern(new LabelSet(labels));
    const found = bound ? boundPartsOf(pod) : undefined;
    const parts = found === undefined ? undefined : this.partSets.intern(found);
    const candidate = new PodShape(pod.spec?.priority ?? 0, pod.status?.phase ?? '', Boolean(pod.metadata.deletionTimestamp), requestShape, labelSet, parts);
    const shape = this.shapes.intern(candidate);
    if (shape !== candidate) this.releaseParts(candidate);
    return shape;
  }

  /** One pod fewer holds `shape`. */
  release(shape: PodShape): void {
    this.shapes.release(shape);
    if (shape.refs === 0) this.releaseParts(shape);
  }

  /** Distinct shapes held (for tests and the bench). */
  get size(): number {
    return this.shapes.size;
  }

  private releaseParts(shape: PodShape): void {
    this.requestShapes.release(shape.requests);
    if (shape.labels !== undefined) this.labelSets.release(shape.labels);
    if (shape.parts !== undefined) this.partSets.release(shape.parts);
  }
}
