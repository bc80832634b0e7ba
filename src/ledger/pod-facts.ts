/**
 * What preemption reads of a pod, answered from what the ledger keeps of it. A proposed victim is read as
 * `BoundPodFacts`: its identity, priority, start time, labels, requests and the parts the inter-pod rules read,
 * taken from the pod store's columns and shared values without building a view (nor rebuilding its object, which
 * makes its start time text only to parse it again). A view of a bound pod answers the same way; any other pod
 * answers from its object. Every answer equals what the pod's `object` states.
 */
import { BoundPod, startMillis } from './bound-pod.js';
import type { NumericDemand } from './numeric-amounts.js';
import type { PodObject } from './objects.js';
import type { PodEntry } from './pod-entry.js';
import type { BoundPodParts, RequestShape } from './pod-shapes.js';

type PodSpec = NonNullable<PodObject['spec']>;
type PodStatus = NonNullable<PodObject['status']>;
type Labels = Readonly<Record<string, string>> | undefined;

/** The fields the inter-pod rules read of a pod (ports, pod (anti-)affinity, volumes, claims), and its labels. */
export interface PodRuleFacts {
  readonly namespace: string;
  readonly labels: Labels;
  readonly spec: Readonly<PodSpec>;
  readonly status: Readonly<PodStatus>;
}

/** What the resource rule reads of a pod taken off a node: its requests (`numericRequestsOf`). */
export interface PodDemand {
  readonly uid: string;
  readonly requests: ReadonlyMap<string, bigint>;
  numericRequests: NumericDemand | undefined;
}

/** A pod as preemption reads it: a view or a pod with its object (PodEntry), or a victim's facts. */
export type PreemptionPod = PodEntry | BoundPodFacts;

const NO_SPEC: Readonly<PodSpec> = Object.freeze({});
const NO_STATUS: Readonly<PodStatus> = Object.freeze({});

/**
 * A bound pod as preemption reads it, read from the store at once (a copy, like a view): no key, resourceVersion,
 * placement or phase, which preemption does not read of its victims.
 */
export class BoundPodFacts implements PodDemand {
  constructor(
    readonly uid: string,
    readonly namespace: string,
    readonly name: string,
    readonly priority: number,
    readonly labels: Labels,
    readonly parts: BoundPodParts | undefined,
    private readonly startTime: number | string | undefined,
    private readonly shape: RequestShape,
  ) {}

  get requests(): ReadonlyMap<string, bigint> {
    return this.shape.requests();
  }

  /** Kept on the pod's request shape, as a view's are. */
  get numericRequests(): NumericDemand | undefined {
    return this.shape.numeric;
  }

  set numericRequests(demand: NumericDemand | undefined) {
    this.shape.numeric = demand;
  }

  startTimeMillis(): number {
    return startMillis(this.startTime);
  }
}

/** status.startTime in milliseconds since the epoch, as Date.parse reads it; NaN when there is none or it is unreadable. */
export function startTimeMillis(pod: PreemptionPod): number {
  if (pod instanceof BoundPodFacts || pod instanceof BoundPod) return pod.startTimeMillis();
  const start = pod.object.status?.startTime;
  return start ? Date.parse(start) : Number.NaN;
}

/** metadata.labels. */
export function podLabels(pod: PreemptionPod): Labels {
  return pod instanceof BoundPodFacts || pod instanceof BoundPod ? pod.labels : pod.object.metadata.labels;
}

/** What the inter-pod rules read; of a bound pod, the parts the ledger keeps (all those rules read). */
export function podRuleFacts(pod: PreemptionPod): PodRuleFacts {
  if (pod instanceof BoundPodFacts || pod instanceof BoundPod) {
    const parts = pod.parts;
    return { namespace: pod.namespace, labels: pod.labels, spec: parts?.spec ?? NO_SPEC, status: parts?.status ?? NO_STATUS };
  }
  return ruleFactsOfObject(pod.object);
}

/** The facts as an object states them. */
export function ruleFactsOfObject(object: PodObject): PodRuleFacts {
  return { namespace: object.metadata?.namespace ?? '', labels: object.metadata?.labels, spec: object.spec ?? NO_SPEC, status: object.status ?? NO_STATUS };
}
