/**
 * Effective pod requests exactly as kube-scheduler's NodeResourcesFit computes them (k8s 1.34–1.36:
 * component-helpers resource.PodRequests with pod-level resources enabled, then framework Resource.SetMaxResource):
 *
 *   max( sum(containers) + sum(sidecars), max over init containers i of (init_i + sidecars declared before i) )
 *   → replaced per resource by pod-level `spec.resources.requests` for cpu, memory and hugepages-*
 *   → plus `spec.overhead`.
 *
 * Upstream adds exact Quantities and converts to integers once at the end (MilliValue for cpu, Value otherwise), so we
 * add exact nano units (every parsed quantity is a whole number of nanos) and round up once at the end; rounding each
 * container first would over-count (two "0.5m" containers are 1m, not 2m).
 *
 * Manifests in snapshot files never went through an apiserver, so we apply the defaulting it would have applied
 * (SetDefaults_Pod): a container limit without a request is also the request, and with PodLevelResources a pod-level
 * limit without a pod-level request becomes the request unless containers already request that cpu/memory (then the
 * pod-level request defaults to their aggregate, which changes nothing). For pods read from a cluster both are no-ops.
 * Containers that reference DRA claims are the exception: their limits include the claims' node-allocatable share.
 *
 * Not included, on purpose: the scheduler's non-zero scoring defaults (100m / 200Mi, scoring only); in-place resize
 * status (status.containerStatuses[].allocatedResources, not kept by the ledger's trimmed pods); DRA node-allocatable
 * claim amounts (accounted per claim by the DRA part of the ledger).
 */
import type { Container, PodObject, ResourceList } from './objects.js';
import { QuantityError, parseQuantity, toMilliCeil, toUnitsCeil, toScaledCeil } from './quantity.js';
import { CPU, addInto, maxInto, quantityText, type ResourceAmounts } from './resource-amounts.js';

/** Exact amounts in nano units (10^-9 of the resource's base unit), before the final rounding. */
type NanoAmounts = Map<string, bigint>;

const NANOS_MEMO_LIMIT = 4096;
const nanosMemo = new Map<string, bigint>();

/** Pods repeat the same few strings ("100m", "128Mi"), so parsed values are memoised by text. */
function nanosOfText(text: string): bigint {
  let nanos = nanosMemo.get(text);
  if (nanos === undefined) {
    nanos = toScaledCeil(parseQuantity(text), 9);
    if (nanosMemo.size >= NANOS_MEMO_LIMIT) nanosMemo.clear();
    nanosMemo.set(text, nanos);
  }
  return nanos;
}

function nanosAt(list: ResourceList, name: string, listPath: string): bigint {
  try {
    return nanosOfText(quantityText(list[name]));
  } catch (err) {
    if (err instanceof QuantityError) err.path = `${listPath}.${name}`;
    throw err;
  }
}

function addNanos(target: NanoAmounts, name: string, nanos: bigint): void {
  target.set(name, (target.get(name) ?? 0n) + nanos);
}

/** A container's requests after apiserver defaulting (limits fill in missing requests), added into target. */
function addContainerRequests(target: NanoAmounts, container: Container, path: string): void {
  const resources = container.resources;
  if (!resources) return;
  const { requests, limits } = resources;
  if (requests) {
    for (const name of Object.keys(requests)) addNanos(target, name, nanosAt(requests, name, `${path}.resources.requests`));
  }
  // A container that uses DRA claims sets limits that cover what its claims bring (KEP-5517: the worked example's
  // limits are pod requests plus the claim's node-allocatable share). Defaulting those limits into requests would count
  // the DRA share twice, so limits only stand in for requests in containers without claims.
  if (limits && !(resources.claims && resources.claims.length > 0)) {
    for (const name of Object.keys(limits)) {
      if (requests && Object.hasOwn(requests, name)) continue;
      addNanos(target, name, nanosAt(limits, name, `${path}.resources.limits`));
    }
  }
}

/** Sidecars (restartPolicy Always) run alongside everything after them; a regular init container runs alone with them. */
function applyInitContainers(total: NanoAmounts, initContainers: readonly Container[]): void {
  const sidecars: NanoAmounts = new Map();
  const peak: NanoAmounts = new Map();
  initContainers.forEach((container, index) => {
    const own: NanoAmounts = new Map();
    addContainerRequests(own, container, `spec.initContainers[${index}]`);
    if (container.restartPolicy === 'Always') {
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(peak, sidecars);
    } else {
      addInto(own, sidecars);
      maxInto(peak, own);
    }
  });
  maxInto(total, peak);
}

/** Resources the PodLevelResources feature manages (component-helpers IsSupportedPodLevelResource). */
export function isPodLevelResource(name: string): boolean {
  return name === CPU || name === 'memory' || name.startsWith('hugepages-');
}

/** Pod-level requests, after apiserver defaulting from pod-level limits, replace the container aggregate. */
function applyPodLevelRequests(total: NanoAmounts, resources: { requests?: ResourceList; limits?: ResourceList }): void {
  const { requests, limits } = resources;
  const overrides: NanoAmounts = new Map();
  if (requests) {
    for (const name of Object.keys(requests)) {
      if (isPodLevelResource(name)) overrides.set(name, nanosAt(requests, name, 'spec.resources.requests'));
    }
  }
  if (limits) {
    for (const name of Object.keys(limits)) {
      if (!isPodLevelResource(name) || (requests && Object.hasOwn(requests, name))) continue;
      // cpu and memory default to the container aggregate when containers request them; hugepages never do.
      const overcommittable = name === CPU || name === 'memory';
      if (overcommittable && total.has(name)) continue;
      overrides.set(name, nanosAt(limits, name, 'spec.resources.limits'));
    }
  }
  for (const [name, nanos] of overrides) total.set(name, nanos);
}

function toLedgerUnits(nanos: NanoAmounts): ResourceAmounts {
  const amounts: ResourceAmounts = new Map();
  for (const [name, mantissa] of nanos) {
    const q = { mantissa, exp10: -9, exp2: 0, format: 'DecimalSI' } as const;
    amounts.set(name, name === CPU ? toMilliCeil(q) : toUnitsCeil(q));
  }
  return amounts;
}

/** The pod's requests in ledger units (cpu millicores, others whole units). Throws QuantityError with a pod-relative path. */
export function effectivePodRequests(pod: PodObject): ResourceAmounts {
  const spec = pod.spec;
  if (!spec) return new Map();
  const total: NanoAmounts = new Map();
  spec.containers?.forEach((container, index) => addContainerRequests(total, container, `spec.containers[${index}]`));
  if (spec.initContainers?.length) applyInitContainers(total, spec.initContainers);
  if (spec.resources) applyPodLevelRequests(total, spec.resources);
  const overhead = spec.overhead;
  if (overhead) {
    for (const name of Object.keys(overhead)) addNanos(total, name, nanosAt(overhead, name, 'spec.overhead'));
  }
  return toLedgerUnits(total);
}
