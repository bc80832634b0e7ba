/**
 * A bound pod of the pod store, as readers see it: a view built on each read from the pod's columns and its shared
 * shape (pod-store.ts). It is a copy: it stays as it was read while the ledger moves on, and two reads of one pod are
 * two objects (compare pods by UID, never by identity). Its `object` is rebuilt on first use from what the ledger
 * keeps of a bound pod.
 */
import type { ObjectMeta, PodObject } from './objects.js';
import type { PodEntry } from './pod-entry.js';
import type { NumericDemand } from './numeric-amounts.js';
import type { PodShape } from './pod-shapes.js';

export class BoundPod implements PodEntry {
  declare readonly key: string;
  declare readonly uid: string;
  declare readonly namespace: string;
  declare readonly name: string;
  declare readonly resourceVersion: string;
  declare readonly nodeName: string;
  declare readonly nominatedNodeName: string;
  declare readonly priority: number;
  declare readonly phase: string;
  declare readonly terminating: boolean;
  declare readonly requests: ReadonlyMap<string, bigint>;
  declare numericRequests: NumericDemand | undefined;
  declare nonZero: { readonly cpu: number; readonly memory: number } | undefined;
  declare readonly requestsError: string | undefined;
  private declare readonly shape: PodShape;
  private declare readonly startTime: string | undefined;
  private declare kept: PodObject | undefined;

  constructor(key: string, uid: string, namespace: string, name: string, resourceVersion: string,
    nodeName: string, nominatedNodeName: string, shape: PodShape, startTime: string | undefined) {
    this.key = key;
    this.uid = uid;
    this.namespace = namespace;
    this.name = name;
    this.resourceVersion = resourceVersion;
    this.nodeName = nodeName;
    this.nominatedNodeName = nominatedNodeName;
    this.priority = shape.priority;
    this.phase = shape.phase;
    this.terminating = shape.terminating;
    this.requests = shape.requests.requests;
    this.numericRequests = shape.requests.numeric;
    this.nonZero = shape.requests.nonZero;
    this.requestsError = undefined;
    this.shape = shape;
    this.startTime = startTime;
    this.kept = undefined;
  }

  get object(): PodObject {
    return (this.kept ??= this.rebuilt());
  }

  private rebuilt(): PodObject {
    const { name, namespace, uid, resourceVersion, shape } = this;
    const metadata: ObjectMeta = { name, namespace, uid, resourceVersion };
    if (shape.labels !== undefined) metadata.labels = shape.labels.labels as Record<string, string>;
    const spec: NonNullable<PodObject['spec']> = { nodeName: this.nodeName, priority: this.priority, ...shape.parts?.spec };
    const status: NonNullable<PodObject['status']> = {};
    if (this.phase !== '') status.phase = this.phase;
    if (this.nominatedNodeName !== '') status.nominatedNodeName = this.nominatedNodeName;
    if (this.startTime !== undefined) status.startTime = this.startTime;
    Object.assign(status, shape.parts?.status);
    return { metadata, spec, status };
  }
}
