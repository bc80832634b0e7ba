/**
 * What preemption reads of a pod, answered from what the ledger keeps of it: a bound pod's view answers from its
 * columns and shared parts without rebuilding its object (rebuilding makes its start time text, only to parse it
 * again); any other pod answers from its object. Every answer equals what the pod's `object` says.
 */
import { BoundPod } from './bound-pod.js';
import type { PodObject } from './objects.js';
import type { PodEntry } from './pod-entry.js';

type PodSpec = NonNullable<PodObject['spec']>;
type PodStatus = NonNullable<PodObject['status']>;

/** The fields the inter-pod rules read of a pod (ports, pod (anti-)affinity, volumes, claims), and its labels. */
export interface PodRuleFacts {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>> | undefined;
  readonly spec: Readonly<PodSpec>;
  readonly status: Readonly<PodStatus>;
}

const NO_SPEC: Readonly<PodSpec> = Object.freeze({});
const NO_STATUS: Readonly<PodStatus> = Object.freeze({});

/** status.startTime in milliseconds since the epoch, as Date.parse reads it; NaN when there is none or it is unreadable. */
export function startTimeMillis(pod: PodEntry): number {
  if (pod instanceof BoundPod) return pod.startTimeMillis();
  const start = pod.object.status?.startTime;
  return start ? Date.parse(start) : Number.NaN;
}

/** metadata.labels. */
export function podLabels(pod: PodEntry): Readonly<Record<string, string>> | undefined {
  return pod instanceof BoundPod ? pod.labels : pod.object.metadata.labels;
}

/** What the inter-pod rules read; of a bound pod, the parts the ledger keeps (all those rules read). */
export function podRuleFacts(pod: PodEntry): PodRuleFacts {
  if (pod instanceof BoundPod) {
    const parts = pod.parts;
    return { namespace: pod.namespace, labels: pod.labels, spec: parts?.spec ?? NO_SPEC, status: parts?.status ?? NO_STATUS };
  }
  return ruleFactsOfObject(pod.object);
}

/** The facts as an object states them. */
export function ruleFactsOfObject(object: PodObject): PodRuleFacts {
  return { namespace: object.metadata?.namespace ?? '', labels: object.metadata?.labels, spec: object.spec ?? NO_SPEC, status: object.status ?? NO_STATUS };
}
