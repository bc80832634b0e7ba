/**
 * A bound pod of the pod store, as readers see it: a view built on each read from the pod's columns and its shared
 * values (pod-store.ts). It is a copy: it stays as it was read while the ledger moves on, and two reads of one pod are
 * two objects (compare pods by UID, never by identity). Its requests and `object` are rebuilt on first use from what
 * the ledger keeps of a bound pod.
 */
import type { ObjectMeta, PodObject } from './objects.js';
import { PodIdentity, type PodEntry } from './pod-entry.js';
import type { NumericDemand } from './numeric-amounts.js';
import type { BoundPodParts, RequestShape } from './pod-shapes.js';
import { unpackTimestamp } from './packed-fields.js';

/** What a bound pod's view is built from beside its identity. */
export interface BoundPlace {
  nodeName: string;
  nominatedNodeName: string;
  priority: number;
  phase: string;
  terminating: boolean;
  requests: RequestShape;
  labels: Readonly<Record<string, string>> | undefined;
  parts: BoundPodParts | undefined;
  /** Packed seconds, made text only when `object` is rebuilt (most reads never ask), or the text kept. */
  startTime: number | string | undefined;
}

export class BoundPod extends PodIdentity implements PodEntry {
  declare nonZero: { readonly cpu: number; readonly memory: number } | undefined;
  declare readonly requestsError: string | undefined;
  private declare readonly place: BoundPlace;
  private declare amounts: ReadonlyMap<string, bigint> | undefined;
  private declare kept: PodObject | undefined;

  constructor(key: string, uid: string, namespace: string, name: string, resourceVersion: string, place: BoundPlace) {
    super(key, uid, namespace, name, resourceVersion, place.nodeName, place.nominatedNodeName, place.priority, place.phase, place.terminating);
    this.nonZero = place.requests.nonZero;
    this.requestsError = undefined;
    this.place = place;
    this.amounts = undefined;
    this.kept = undefined;
  }

  /** Kept on the pod's request shape: the same for every pod of that shape. */
  get numericRequests(): NumericDemand | undefined {
    return this.place.requests.numeric;
  }

  set numericRequests(demand: NumericDemand | undefined) {
    this.place.requests.numeric = demand;
  }

  get requests(): ReadonlyMap<string, bigint> {
    return (this.amounts ??= this.place.requests.requests());
  }

  get object(): PodObject {
    return (this.kept ??= this.rebuilt());
  }

  /** metadata.labels, without the object rebuilt. */
  get labels(): Readonly<Record<string, string>> | undefined {
    return this.place.labels;
  }

  /** The kept parts preemption and DRA read (pod-shapes.ts), without the object rebuilt. */
  get parts(): BoundPodParts | undefined {
    return this.place.parts;
  }

  /** status.startTime as Date.parse reads it (NaN when none), without making a packed time text. */
  startTimeMillis(): number {
    return startMillis(this.place.startTime);
  }

  private rebuilt(): PodObject {
    const { name, namespace, uid, resourceVersion, place } = this;
    const metadata: ObjectMeta = { name, namespace, uid, resourceVersion };
    if (place.labels !== undefined) metadata.labels = place.labels as Record<string, string>;
    const spec: NonNullable<PodObject['spec']> = { nodeName: this.nodeName, priority: this.priority, ...place.parts?.spec };
    const status: NonNullable<PodObject['status']> = {};
    if (this.phase !== '') status.phase = this.phase;
    if (this.nominatedNodeName !== '') status.nominatedNodeName = this.nominatedNodeName;
    if (place.startTime !== undefined) status.startTime = typeof place.startTime === 'number' ? unpackTimestamp(place.startTime) : place.startTime;
    Object.assign(status, place.parts?.status);
    return { metadata, spec, status };
  }
}

/** A start time as the store keeps it (packed seconds, the text kept, or none) in milliseconds as Date.parse reads its text. */
export function startMillis(start: number | string | undefined): number {
  if (typeof start === 'number') return start * 1000;
  return start ? Date.parse(start) : Number.NaN;
}
