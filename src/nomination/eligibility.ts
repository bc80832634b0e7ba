/**
 * The nominator's eligibility pre-check: whether kube-ledger may nominate a pod at all, and which nodes the pod
 * can use regardless of capacity. Pure; reads what the trim keeps (cluster/trim.ts). Rules follow upstream:
 * - schedulerName: only pods of a scheduler this extender serves (`nomination.schedulerNames`; empty spec =
 *   "default-scheduler", as the API server defaults it);
 * - schedulingGates: a gated pod is not even in the scheduling queue (KEP-3521) — never nominated;
 * - nodeSelector: every pair must equal the node's label;
 * - required node affinity: terms are ORed, requirements in a term ANDed; an empty term list matches nothing
 *   (component-helpers scheduling/corev1/nodeaffinity: GetRequiredNodeAffinity / NodeSelector.Match);
 * - taints with effect NoSchedule or NoExecute must each be tolerated (component-helpers scheduling/corev1
 *   FindMatchingUntoleratedTaint, k8s.io/api core/v1 Toleration.ToleratesTaint); PreferNoSchedule is soft.
 * Anything not understood (an unknown operator) counts as not matching: the nominator errs towards nominating
 * nothing rather than a node the scheduler would reject.
 */
import type { NodeView } from '../ledger/node-entry.js';
import type { NodeSelector, NodeSelectorRequirement, PodObject, Taint, Toleration } from '../ledger/objects.js';

export const DEFAULT_SCHEDULER = 'default-scheduler';
const HARD_TAINT_EFFECTS: ReadonlySet<string> = new Set(['NoSchedule', 'NoExecute']);

/** Why the pod is never nominated, or undefined when it may be. */
export function podIneligibility(pod: PodObject, schedulerNames: readonly string[]): string | undefined {
  const scheduler = pod.spec?.schedulerName || DEFAULT_SCHEDULER;
  if (!schedulerNames.includes(scheduler)) return `schedulerName ${scheduler} is not served (nomination.schedulerNames)`;
  const gates = pod.spec?.schedulingGates ?? [];
  if (gates.length > 0) return `pod has scheduling gates (${gates.map((g) => g.name).join(', ')})`;
  return undefined;
}

/** Why the pod can never use this node, or undefined when it can (capacity aside). */
export function nodeIneligibilityFor(pod: PodObject, node: NodeView): string | undefined {
  if (!node.known) return 'node object unknown';
  if (node.unschedulable) return 'node is cordoned (spec.unschedulable)';
  const selector = pod.spec?.nodeSelector ?? {};
  for (const [key, value] of Object.entries(selector)) {
    if (node.labels[key] !== value) return `node does not match nodeSelector ${key}=${value}`;
  }
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required && !matchesNodeSelectorTerms(required.nodeSelectorTerms ?? [], node)) return 'node does not match required node affinity';
  const untolerated = node.taints.find((taint) => HARD_TAINT_EFFECTS.has(taint.effect) && !tolerated(taint, pod.spec?.tolerations ?? []));
  if (untolerated) return `node has untolerated taint ${untolerated.key}:${untolerated.effect}`;
  return undefined;
}

function matchesNodeSelectorTerms(terms: NonNullable<NodeSelector['nodeSelectorTerms']>, node: NodeView): boolean {
  return terms.some((term) => {
    const expressions = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    // An empty term matches no objects (upstream: "nil or empty term matches no objects").
    if (expressions.length === 0 && fields.length === 0) return false;
    return expressions.every((r) => matchesRequirement(r, node.labels[r.key])) && fields.every((r) => r.key === 'metadata.name' && matchesRequirement(r, node.name));
  });
}

function matchesRequirement(requirement: NodeSelectorRequirement, actual: string | undefined): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return actual !== undefined && values.includes(actual);
    case 'NotIn':
      return actual === undefined || !values.includes(actual);
    case 'Exists':
      return actual !== undefined;
    case 'DoesNotExist':
      return actual === undefined;
    case 'Gt':
    case 'Lt':
      return compareIntegers(requirement.operator, actual, values[0]);
    default:
      return false;
  }
}

/** Gt/Lt compare the label and the single value as integers; anything unparsable does not match. */
function compareIntegers(operator: 'Gt' | 'Lt', actual: string | undefined, wanted: string | undefined): boolean {
  const integer = /^[+-]?\d+$/;
  if (actual === undefined || wanted === undefined || !integer.test(actual) || !integer.test(wanted)) return false;
  const a = BigInt(actual);
  const b = BigInt(wanted);
  return operator === 'Gt' ? a > b : a < b;
}

function tolerated(taint: Taint, tolerations: readonly Toleration[]): boolean {
  return tolerations.some((toleration) => toleratesTaint(toleration, taint));
}

/** core/v1 Toleration.ToleratesTaint: effect (empty = all), key (empty with Exists = all), then the operator. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
    case '':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}
