/**
 * Effective pod requests exactly as kube-scheduler's NodeResourcesFit computes them (k8s 1.36: component-helpers
 * resource.PodRequests with UseStatusResources (InPlacePodVerticalScaling GA) and pod-level resources enabled, then
 * framework Resource.SetMaxResource):
 *
 *   per container list (spec, allocated, actuated), aggregated as
 *     max( sum(containers) + sum(sidecars), max over init containers i of (init_i + sidecars declared before i) )
 *   → max(spec, actuated, allocated) per resource (only actuated and allocated when the resize is `Infeasible`)
 *   → replaced per resource by the pod-level request (cpu, memory, hugepages-*), itself max(spec, status) with resize
 *   → plus `spec.overhead`.
 *
 * "allocated" is status.containerStatuses[].allocatedResources (else the spec request, nothing when Infeasible);
 * "actuated" is containerStatuses[].resources.requests (else allocated, else spec, nothing when Infeasible). A
 * `Deferred` resize has no rule of its own: spec and status both count, the larger wins. When the pod-level status
 * maps (status.allocatedResources and status.resources.requests) are both present they replace the container
 * aggregates (AggregateContainerRequests). A pod with spec cpu 1 and allocated cpu 3 holds 3.
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
 * `nonZero` computes the scoring variant (NonZeroRequested: a container without a cpu or memory request counts
 * 100m / 200Mi, applyNonMissing). Not included: DRA node-allocatable claim amounts (accounted per claim by the DRA part
 * of the ledger, which leaves out the resources a pod-level request covers: podLevelRequestedResources).
 */
import type { Container, ContainerStatus, PodObject, ResourceList } from './objects.js';
import { QuantityError, parseQuantity, toMilliCeil, toUnitsCeil, toScaledCeil } from './quantity.js';
import { CPU, addInto, maxInto, quantityText, type ResourceAmounts } from './resource-amounts.js';
import { ClearingMemo } from './clearing-memo.js';

/** Exact amounts in nano units (10^-9 of the resource's base unit), before the final rounding. */
type NanoAmounts = Map<string, bigint>;

const nanosMemo = new ClearingMemo<string, bigint>(4096);

/** Pods repeat the same few strings ("100m", "128Mi"), so parsed values are memoised by text. */
function nanosOfText(text: string): bigint {
  return nanosMemo.get(text) ?? nanosMemo.remember(text, toScaledCeil(parseQuantity(text), 9));
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

/** A container's requests after apiserver defaulting (limits fill in missing requests). */
function containerSpecRequests(container: Container, path: string): NanoAmounts {
  const own: NanoAmounts = new Map();
  const resources = container.resources;
  if (!resources) return own;
  const { requests, limits } = resources;
  if (requests) {
    for (const name of Object.keys(requests)) addNanos(own, name, nanosAt(requests, name, `${path}.resources.requests`));
  }
  // A container that uses DRA claims sets limits that cover what its claims bring (KEP-5517: the worked example's
  // limits are pod requests plus the claim's node-allocatable share). Defaulting those limits into requests would count
  // the DRA share twice, so limits only stand in for requests in containers without claims.
  if (limits && !(resources.claims && resources.claims.length > 0)) {
    for (const name of Object.keys(limits)) {
      if (requests && Object.hasOwn(requests, name)) continue;
      addNanos(own, name, nanosAt(limits, name, `${path}.resources.limits`));
    }
  }
  return own;
}

function listNanos(list: ResourceList, path: string): NanoAmounts {
  const own: NanoAmounts = new Map();
  for (const name of Object.keys(list)) addNanos(own, name, nanosAt(list, name, path));
  return own;
}

/** Which of a container's lists counts: upstream's containerSpecRequests / containerAllocatedRequests / containerActuatedRequests. */
type ListKind = 'spec' | 'allocated' | 'actuated';

interface StatusRef {
  status: ContainerStatus;
  path: string;
}

function containerList(kind: ListKind, container: Container, path: string, status: StatusRef | undefined, infeasible: boolean): NanoAmounts {
  if (kind === 'actuated' && status?.status.resources?.requests) {
    return listNanos(status.status.resources.requests, `${status.path}.resources.requests`);
  }
  if (kind !== 'spec' && status?.status.allocatedResources) return listNanos(status.status.allocatedResources, `${status.path}.allocatedResources`);
  if (kind !== 'spec' && infeasible) return new Map();
  return containerSpecRequests(container, path);
}

/** Nano amounts of the scheduler's non-zero defaults for containers that do not request cpu or memory. */
const NON_MISSING: ReadonlyMap<string, bigint> = new Map([
  [CPU, 100_000_000n],
  ['memory', 200n * 1024n * 1024n * 1_000_000_000n],
]);

function applyNonMissing(own: NanoAmounts): void {
  for (const [name, nanos] of NON_MISSING) if (!own.has(name)) own.set(name, nanos);
}

interface AggregateContext {
  kind: ListKind;
  infeasible: boolean;
  nonZero: boolean;
  statuses: ReadonlyMap<string, StatusRef>;
}

/**
 * One list kind aggregated over the pod's containers (upstream aggregateContainerResourcesByFn): sidecars
 * (restartPolicy Always) run alongside everything after them; a regular init container runs alone with them.
 */
function aggregateContainers(spec: NonNullable<PodObject['spec']>, ctx: AggregateContext): NanoAmounts {
  const total: NanoAmounts = new Map();
  const containers = spec.containers ?? [];
  for (let index = 0; index < containers.length; index++) addInto(total, ownOf(ctx, containers[index]!, 'spec.containers', index));
  const initContainers = spec.initContainers ?? [];
  if (initContainers.length === 0) return total;
  const sidecars: NanoAmounts = new Map();
  const peak: NanoAmounts = new Map();
  initContainers.forEach((container, index) => {
    const own = ownOf(ctx, container, 'spec.initContainers', index);
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
  return total;
}

/** One container's list of the context's kind (with the scoring defaults when asked), its path built only here. */
function ownOf(ctx: AggregateContext, container: Container, field: string, index: number): NanoAmounts {
  const own = containerList(ctx.kind, container, `${field}[${index}]`, ctx.statuses.get(container.name), ctx.infeasible);
  if (ctx.nonZero) applyNonMissing(own);
  return own;
}

/** component-helpers IsPodResizeInfeasible: the PodResizePending condition says Infeasible. */
export function isResizeInfeasible(pod: PodObject): boolean {
  const condition = pod.status?.conditions?.find((c) => c.type === 'PodResizePending');
  return condition?.reason === 'Infeasible';
}

const NO_STATUSES: ReadonlyMap<string, StatusRef> = new Map();

function statusRefs(pod: PodObject): Map<string, StatusRef> {
  const refs = new Map<string, StatusRef>();
  const add = (list: ContainerStatus[] | undefined, field: string): void =>
    list?.forEach((status, index) => {
      if (!refs.has(status.name)) refs.set(status.name, { status, path: `status.${field}[${index}]` });
    });
  add(pod.status?.containerStatuses, 'containerStatuses');
  add(pod.status?.initContainerStatuses, 'initContainerStatuses');
  return refs;
}

/**
 * Whether the pod's status carries anything resize can change the requests with. A container status without
 * allocatedResources or resources.requests makes its container's allocated and actuated lists the spec list (see
 * containerList), so a running pod whose statuses carry neither (most pods) aggregates to exactly the spec total.
 */
function hasResizeStatus(pod: PodObject): boolean {
  const status = pod.status;
  if (!status) return false;
  return (
    status.allocatedResources !== undefined ||
    status.resources !== undefined ||
    carriesResources(status.containerStatuses) ||
    carriesResources(status.initContainerStatuses)
  );
}

function carriesResources(statuses: ContainerStatus[] | undefined): boolean {
  if (!statuses) return false;
  for (const status of statuses) if (status.allocatedResources || status.resources?.requests) return true;
  return false;
}

/**
 * Whether the scoring variant (`nonZero`) of the pod's requests is the plain one for cpu and memory: no resize
 * status makes the allocated or actuated lists count, and every container's spec list (requests, plus limits
 * standing in for them in containers without DRA claims) already names cpu and memory, so the scheduler's non-zero
 * defaults (applyNonMissing) change no container and both computations take the same steps. True for most pods: at
 * 150k pods the second computation is then skipped.
 */
export function nonZeroMatchesRequests(pod: PodObject): boolean {
  const spec = pod.spec;
  if (!spec) return true;
  if (isResizeInfeasible(pod) || hasResizeStatus(pod)) return false;
  return listsNameCpuAndMemory(spec.containers) && listsNameCpuAndMemory(spec.initContainers);
}

function listsNameCpuAndMemory(containers: Container[] | undefined): boolean {
  if (!containers) return true;
  for (const container of containers) {
    const resources = container.resources;
    if (!resources) return false;
    const { requests, limits } = resources;
    const limitsCount = limits !== undefined && !(resources.claims && resources.claims.length > 0);
    const names = (name: string): boolean => (requests !== undefined && Object.hasOwn(requests, name)) || (limitsCount && Object.hasOwn(limits, name));
    if (!names(CPU) || !names('memory')) return false;
  }
  return true;
}

/** upstream AggregateContainerRequests with UseStatusResources: the larger of what the spec asks and what the kubelet holds. */
function containerAggregate(pod: PodObject, spec: NonNullable<PodObject['spec']>, nonZero: boolean): NanoAmounts {
  const infeasible = isResizeInfeasible(pod);
  if (!infeasible && !hasResizeStatus(pod)) return aggregateContainers(spec, { kind: 'spec', infeasible: false, nonZero, statuses: NO_STATUSES });
  const statuses = statusRefs(pod);
  const specTotal = aggregateContainers(spec, { kind: 'spec', infeasible: false, nonZero, statuses });
  const podStatus = pod.status!;
  let allocated: NanoAmounts;
  let actuated: NanoAmounts;
  if (podStatus.allocatedResources && podStatus.resources?.requests) {
    allocated = listNanos(podStatus.allocatedResources, 'status.allocatedResources');
    actuated = listNanos(podStatus.resources.requests, 'status.resources.requests');
  } else {
    allocated = aggregateContainers(spec, { kind: 'allocated', infeasible, nonZero, statuses });
    actuated = aggregateContainers(spec, { kind: 'actuated', infeasible, nonZero, statuses });
  }
  const total: NanoAmounts = infeasible ? new Map() : specTotal;
  maxInto(total, actuated);
  maxInto(total, allocated);
  return total;
}

/** Resources the PodLevelResources feature manages (component-helpers IsSupportedPodLevelResource). */
export function isPodLevelResource(name: string): boolean {
  return name === CPU || name === 'memory' || name.startsWith('hugepages-');
}

/** Pod-level requests, after apiserver defaulting from pod-level limits, replace the container aggregate. */
function applyPodLevelRequests(total: NanoAmounts, pod: PodObject, resources: { requests?: ResourceList; limits?: ResourceList }): void {
  const overrides: NanoAmounts = new Map();
  for (const [name, from] of podLevelSources(resources, (name) => total.has(name))) {
    overrides.set(name, from === 'requests' ? nanosAt(resources.requests!, name, 'spec.resources.requests') : nanosAt(resources.limits!, name, 'spec.resources.limits'));
  }
  if (overrides.size === 0) return;
  for (const [name, nanos] of podLevelWithStatus(pod, overrides)) if (isPodLevelResource(name)) total.set(name, nanos);
}

/** Which pod-level resources the pod requests, and from which list (a limit stands in for a missing request). */
function podLevelSources(
  resources: { requests?: ResourceList; limits?: ResourceList },
  containersRequest: (name: string) => boolean,
): Map<string, 'requests' | 'limits'> {
  const { requests, limits } = resources;
  const sources = new Map<string, 'requests' | 'limits'>();
  if (requests) for (const name of Object.keys(requests)) if (isPodLevelResource(name)) sources.set(name, 'requests');
  if (limits) {
    for (const name of Object.keys(limits)) {
      if (!isPodLevelResource(name) || (requests && Object.hasOwn(requests, name))) continue;
      // cpu and memory default to the container aggregate when containers request them; hugepages never do.
      const overcommittable = name === CPU || name === 'memory';
      if (overcommittable && containersRequest(name)) continue;
      sources.set(name, 'limits');
    }
  }
  return sources;
}

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * The resources whose pod total IS the pod-level request (cpu, memory, hugepages-* set in spec.resources, after
 * defaulting). KEP-5517: for these a bound pod's DRA claim amounts are inside the pod-level value and never add on
 * top of it — component-helpers PodRequests adds the claims' node-allocatable amounts into the container aggregate
 * (AggregateContainerRequests with UseDRANodeAllocatableResourceClaimStatus), then applyPodLevelResources replaces
 * that aggregate by the pod-level value. An unreadable quantity leaves only the explicit requests (the claim then
 * counts on top: never under-counted).
 */
export function podLevelRequestedResources(pod: PodObject): ReadonlySet<string> {
  const spec = pod.spec;
  const resources = spec?.resources;
  if (!spec || !resources || (!resources.requests && !resources.limits)) return NO_NAMES;
  let aggregate: NanoAmounts | null | undefined;
  const containersRequest = (name: string): boolean => {
    if (aggregate === undefined) {
      try {
        aggregate = containerAggregate(pod, spec, false);
      } catch {
        aggregate = null;
      }
    }
    return aggregate === null || aggregate.has(name);
  };
  const names = [...podLevelSources(resources, containersRequest).keys()];
  return names.length === 0 ? NO_NAMES : new Set(names);
}

/**
 * upstream effectivePodLevelResources: with pod-level resize status, the larger of the spec and what the kubelet
 * allocated / actuated (both without overhead); spec ignored when the resize is Infeasible.
 */
function podLevelWithStatus(pod: PodObject, spec: NanoAmounts): NanoAmounts {
  const status = pod.status;
  if (!status || (status.resources === undefined && status.allocatedResources === undefined)) return spec;
  const overhead = pod.spec?.overhead;
  const withoutOverhead = (list: ResourceList | undefined, path: string): NanoAmounts | undefined => {
    if (!list) return undefined;
    const amounts = listNanos(list, path);
    if (overhead) {
      for (const name of Object.keys(overhead)) {
        const current = amounts.get(name);
        if (current === undefined) continue;
        const left = current - nanosAt(overhead, name, 'spec.overhead');
        amounts.set(name, left > 0n ? left : 0n);
      }
    }
    return amounts;
  };
  const result: NanoAmounts = isResizeInfeasible(pod) ? new Map() : new Map(spec);
  const actuated = withoutOverhead(status.resources?.requests, 'status.resources.requests');
  const allocated = withoutOverhead(status.allocatedResources, 'status.allocatedResources');
  if (actuated) maxInto(result, actuated);
  if (allocated) maxInto(result, allocated);
  return result;
}

function toLedgerUnits(nanos: NanoAmounts): ResourceAmounts {
  const amounts: ResourceAmounts = new Map();
  for (const [name, mantissa] of nanos) {
    const q = { mantissa, exp10: -9, exp2: 0, format: 'DecimalSI' } as const;
    amounts.set(name, name === CPU ? toMilliCeil(q) : toUnitsCeil(q));
  }
  return amounts;
}

/**
 * The pod's requests in ledger units (cpu millicores, others whole units). Throws QuantityError with a pod-relative
 * path. `nonZero`: the scoring variant (upstream NonZeroRequested, only its cpu and memory are read).
 */
export function effectivePodRequests(pod: PodObject, options: { nonZero?: boolean } = {}): ResourceAmounts {
  const spec = pod.spec;
  if (!spec) return new Map();
  const total = containerAggregate(pod, spec, options.nonZero ?? false);
  if (spec.resources) applyPodLevelRequests(total, pod, spec.resources);
  const overhead = spec.overhead;
  if (overhead) {
    for (const name of Object.keys(overhead)) addNanos(total, name, nanosAt(overhead, name, 'spec.overhead'));
  }
  return toLedgerUnits(total);
}

/**
 * What upstream's validatePodLevelRequestsCoverDRA compares for a pod with pod-level requests, in exact nano units:
 * each pod-level requested resource (cpu, memory, hugepages-*, after defaulting) and the containers' aggregate of it
 * (spec requests, pod-level values and overhead left out: the overhead is on both sides upstream). Undefined when the
 * pod sets no pod-level request; a resource the containers do not request is absent from `containers`.
 */
export function podLevelBudgetNanos(pod: PodObject): { podLevel: Map<string, bigint>; containers: Map<string, bigint> } | undefined {
  const spec = pod.spec;
  const resources = spec?.resources;
  if (!spec || !resources || (!resources.requests && !resources.limits)) return undefined;
  const containers = aggregateContainers(spec, { kind: 'spec', infeasible: false, nonZero: false, statuses: NO_STATUSES });
  const podLevel = new Map<string, bigint>();
  for (const [name, from] of podLevelSources(resources, (n) => containers.has(n))) {
    podLevel.set(name, from === 'requests' ? nanosAt(resources.requests!, name, 'spec.resources.requests') : nanosAt(resources.limits!, name, 'spec.resources.limits'));
  }
  return podLevel.size === 0 ? undefined : { podLevel, containers };
}
