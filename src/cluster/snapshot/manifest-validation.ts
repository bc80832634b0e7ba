/**
 * The checks a snapshot object must pass before kube-ledger trusts it: the fields the ledger reads exist with the
 * right types and every quantity parses. Returns a message naming the field, or undefined when the object is fine.
 */
import type { ClusterObjectKind, NodeObject, PodDisruptionBudgetObject, PodObject, ResourceSliceObject } from '../../ledger/objects.js';
import { effectivePodRequests } from '../../ledger/pod-requests.js';
import { QuantityError } from '../../ledger/quantity.js';
import { amountsFromResourceList, type ResourceAmounts } from '../../ledger/resource-amounts.js';

/**
 * `podRequests: false` leaves the pod's requests to the caller (`checkedPodRequests`, e.g. on the trimmed pod the
 * ledger will receive, whose requests are then computed once).
 */
export function validateObject(kind: ClusterObjectKind, object: Record<string, unknown>, options: { podRequests?: boolean } = {}): string | undefined {
  const meta = object['metadata'];
  if (typeof meta !== 'object' || meta === null) return 'metadata: expected an object';
  const name = (meta as Record<string, unknown>)['name'];
  if (typeof name !== 'string' || name === '') return 'metadata.name: required';
  try {
    switch (kind) {
      case 'Node':
        amountsFromResourceList((object as unknown as NodeObject).status?.allocatable, 'status.allocatable');
        return undefined;
      case 'Pod':
        return validatePod(object as unknown as PodObject, options.podRequests ?? true);
      case 'ResourceSlice':
        return validateSlice(object as unknown as ResourceSliceObject);
      case 'PodDisruptionBudget':
        return validateDisruptionBudget(object as unknown as PodDisruptionBudgetObject);
      default:
        return undefined;
    }
  } catch (err) {
    return problemOf(err);
  }
}

function problemOf(err: unknown): string {
  if (err instanceof QuantityError) return `${err.path ?? 'quantity'}: ${err.message}`;
  return (err as Error).message;
}

/** The pod's effective requests, or the problem (naming the field) that keeps them from being computed. */
export function checkedPodRequests(pod: PodObject): { requests: ResourceAmounts } | { problem: string } {
  try {
    return { requests: effectivePodRequests(pod) };
  } catch (err) {
    return { problem: problemOf(err) };
  }
}

function validatePod(pod: PodObject, requests: boolean): string | undefined {
  if (pod.spec !== undefined && (typeof pod.spec !== 'object' || pod.spec === null)) return 'spec: expected an object';
  if (pod.spec?.containers !== undefined && !Array.isArray(pod.spec.containers)) return 'spec.containers: expected a list';
  if (pod.spec?.priority !== undefined && !Number.isInteger(pod.spec.priority)) return 'spec.priority: expected an integer';
  if (requests) effectivePodRequests(pod);
  return undefined;
}

function validateSlice(slice: ResourceSliceObject): string | undefined {
  const spec = slice.spec as ResourceSliceObject['spec'] | undefined;
  if (!spec || typeof spec.driver !== 'string') return 'spec.driver: required';
  if (!spec.pool || typeof spec.pool.name !== 'string') return 'spec.pool.name: required';
  if (!Number.isInteger(spec.pool.generation)) return 'spec.pool.generation: expected an integer';
  if (!Number.isInteger(spec.pool.resourceSliceCount)) return 'spec.pool.resourceSliceCount: expected an integer';
  if (spec.devices !== undefined && !Array.isArray(spec.devices)) return 'spec.devices: expected a list';
  return undefined;
}

/** What preemption's PDB count reads; a wrong type would silently count a budget as exhausted or absent. */
function validateDisruptionBudget(pdb: PodDisruptionBudgetObject): string | undefined {
  const selector = pdb.spec?.selector as unknown;
  if (selector !== undefined && selector !== null && (typeof selector !== 'object' || Array.isArray(selector))) return 'spec.selector: expected an object';
  const allowed = pdb.status?.disruptionsAllowed as unknown;
  if (allowed !== undefined && !Number.isInteger(allowed)) return 'status.disruptionsAllowed: expected an integer';
  const disrupted = pdb.status?.disruptedPods as unknown;
  if (disrupted !== undefined && (typeof disrupted !== 'object' || disrupted === null || Array.isArray(disrupted))) return 'status.disruptedPods: expected a map of pod names';
  return undefined;
}
