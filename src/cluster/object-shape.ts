/**
 * The shape checks of the admission rule (admission.ts): the fields the ledger reads exist with the types it reads
 * them as. A problem is returned as text naming the field; the object is then quarantined, not counted. Quantities
 * are not checked here: the ledger reads them where it counts them (a pod's requests, a node's allocatable).
 */
import type { ClusterObject, ClusterObjectKind, NodeObject, PodDisruptionBudgetObject, PodObject, ResourceSliceObject } from '../ledger/objects.js';

/** What is wrong with the object's shape, naming the field; undefined when the ledger can read it. */
export function shapeProblem(kind: ClusterObjectKind, object: ClusterObject): string | undefined {
  switch (kind) {
    case 'Node':
      return nodeProblem(object as NodeObject);
    case 'Pod':
      return podProblem(object as PodObject);
    case 'ResourceSlice':
      return sliceProblem(object as ResourceSliceObject);
    case 'PodDisruptionBudget':
      return disruptionBudgetProblem(object as PodDisruptionBudgetObject);
    default:
      return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `path: expected <what>` unless `value` is absent or passes `ok`. */
function expect(value: unknown, ok: (value: unknown) => boolean, path: string, what: string): string | undefined {
  return value === undefined || ok(value) ? undefined : `${path}: expected ${what}`;
}

function nodeProblem(node: NodeObject): string | undefined {
  return expect(node.spec, isRecord, 'spec', 'an object')
    ?? expect(node.spec?.taints, Array.isArray, 'spec.taints', 'a list')
    ?? expect(node.status, isRecord, 'status', 'an object')
    ?? expect(node.status?.allocatable, isRecord, 'status.allocatable', 'a map of quantities');
}

function podProblem(pod: PodObject): string | undefined {
  const spec = pod.spec as unknown;
  if (spec !== undefined && !isRecord(spec)) return 'spec: expected an object';
  const status = pod.status as unknown;
  if (status !== undefined && !isRecord(status)) return 'status: expected an object';
  return podPlacementProblem(pod) ?? podResourcesProblem(pod.spec);
}

/** The fields that say where a pod runs or is headed (priority, node, nomination, phase). */
function podPlacementProblem(pod: PodObject): string | undefined {
  return expect(pod.spec?.priority, Number.isInteger, 'spec.priority', 'an integer')
    ?? expect(pod.spec?.nodeName, isString, 'spec.nodeName', 'a string')
    ?? expect(pod.status?.nominatedNodeName, isString, 'status.nominatedNodeName', 'a string')
    ?? expect(pod.status?.phase, isString, 'status.phase', 'a string');
}

/** The fields a pod's requests are counted from. */
function podResourcesProblem(spec: PodObject['spec']): string | undefined {
  return expect(spec?.overhead, isRecord, 'spec.overhead', 'a map of quantities')
    ?? expect(spec?.resources, isRecord, 'spec.resources', 'an object')
    ?? containersProblem(spec?.containers, 'spec.containers')
    ?? containersProblem(spec?.initContainers, 'spec.initContainers');
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function containersProblem(containers: unknown, path: string): string | undefined {
  if (containers === undefined) return undefined;
  if (!Array.isArray(containers)) return `${path}: expected a list`;
  for (const [i, container] of (containers as unknown[]).entries()) {
    if (!isRecord(container)) return `${path}[${i}]: expected an object`;
    const resources = container['resources'];
    if (resources === undefined) continue;
    if (!isRecord(resources)) return `${path}[${i}].resources: expected an object`;
    const problem = expect(resources['requests'], isRecord, `${path}[${i}].resources.requests`, 'a map of quantities')
      ?? expect(resources['limits'], isRecord, `${path}[${i}].resources.limits`, 'a map of quantities')
      ?? expect(resources['claims'], Array.isArray, `${path}[${i}].resources.claims`, 'a list');
    if (problem) return problem;
  }
  return undefined;
}

function sliceProblem(slice: ResourceSliceObject): string | undefined {
  const spec = slice.spec as ResourceSliceObject['spec'] | undefined;
  if (!isRecord(spec) || typeof spec.driver !== 'string') return 'spec.driver: required';
  if (!isRecord(spec.pool) || typeof spec.pool.name !== 'string') return 'spec.pool.name: required';
  if (!Number.isInteger(spec.pool.generation)) return 'spec.pool.generation: expected an integer';
  if (!Number.isInteger(spec.pool.resourceSliceCount)) return 'spec.pool.resourceSliceCount: expected an integer';
  return expect(spec.devices, Array.isArray, 'spec.devices', 'a list');
}

/** What preemption's PDB count reads; a wrong type would silently count a budget as exhausted or absent. */
function disruptionBudgetProblem(pdb: PodDisruptionBudgetObject): string | undefined {
  const selector = pdb.spec?.selector as unknown;
  if (selector !== undefined && selector !== null && !isRecord(selector)) return 'spec.selector: expected an object';
  return expect(pdb.status?.disruptionsAllowed, Number.isInteger, 'status.disruptionsAllowed', 'an integer')
    ?? expect(pdb.status?.disruptedPods, isRecord, 'status.disruptedPods', 'a map of pod names');
}
