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
 * `nonZero` computes the scoring variants (a container without a cpu or memory request counts the registry's non-zero
 * default, 100m / 200Mi): `nonZero: true` a bound pod's share of its node's NonZeroRequested, `nonZero: 'every-container'`
 * an incoming pod's score request (see `nonMissingDefaults`). Not included: DRA node-allocatable claim amounts
 * (accounted per claim by the DRA part of the ledger, which leaves out the resources a pod-level request covers:
 * podLevelRequestedResources).
 */
import type { Container, ContainerStatus, PodObject, ResourceList } from './objects.js';
import { QuantityError, parseQuantity, toMilliCeil, toUnitsCeil, toScaledCeil } from './quantity.js';
import { CPU, addInto, maxInto, quantityText, type ResourceAmounts } from './resource-amounts.js';
import type { ClearingMemo } from './clearing-memo.js';
import { NAMED_RESOURCES, resourceUnit } from './resources.js';

/** Exact amounts in nano units (10^-9 of the resource's base unit), before the final rounding. */
type NanoAmounts = Map<string, bigint>;

/** Quantity text → exact nano units; the ledger's interner remembers the texts pods repeat ("100m", "128Mi"). */
export type QuantityMemo = ClearingMemo<string, bigint>;

/** How a computation reads quantity texts: through the caller's memo, or parsing each one. */
interface Quantities {
  readonly memo: QuantityMemo | undefined;
}

/** No memo: every text parsed (callers outside the ledger's own entry builder). */
const PARSE_EACH: Quantities = Object.freeze({ memo: undefined });

function nanosOfText(q: Quantities, text: string): bigint {
  const memo = q.memo;
  if (memo === undefined) return toScaledCeil(parseQuantity(text), 9);
  return memo.get(text) ?? memo.remember(text, toScaledCeil(parseQuantity(text), 9));
}

function nanosAt(q: Quantities, list: ResourceList, name: string, listPath: string): bigint {
  try {
    return nanosOfText(q, quantityText(list[name]));
  } catch (err) {
    if (err instanceof QuantityError) err.path = `${listPath}.${name}`;
    throw err;
  }
}

function addNanos(target: NanoAmounts, name: string, nanos: bigint): void {
  target.set(name, (target.get(name) ?? 0n) + nanos);
}

/** A container's requests after apiserver defaulting (limits fill in missing requests). */
function containerSpecRequests(q: Quantities, container: Container, path: string): NanoAmounts {
  const own: NanoAmounts = new Map();
  const resources = container.resources;
  if (!resources) return own;
  const { requests, limits } = resources;
  if (requests) {
    for (const name of Object.keys(requests)) addNanos(own, name, nanosAt(q, requests, name, `${path}.resources.requests`));
  }
  // A container that uses DRA claims sets limits that cover what its claims bring (KEP-5517: the worked example's
  // limits are pod requests plus the claim's node-allocatable share). Defaulting those limits into requests would count
  // the DRA share twice, so limits only stand in for requests in containers without claims.
  if (limits && !(resources.claims && resources.claims.length > 0)) {
    for (const name of Object.keys(limits)) {
      if (requests && Object.hasOwn(requests, name)) continue;
      addNanos(own, name, nanosAt(q, limits, name, `${path}.resources.limits`));
    }
  }
  return own;
}

function listNanos(q: Quantities, list: ResourceList, path: string): NanoAmounts {
  const own: NanoAmounts = new Map();
  for (const name of Object.keys(list)) addNanos(own, name, nanosAt(q, list, name, path));
  return own;
}

/** Which of a container's lists counts: upstream's containerSpecRequests / containerAllocatedRequests / containerActuatedRequests. */
type ListKind = 'spec' | 'allocated' | 'actuated';

interface StatusRef {
  status: ContainerStatus;
  path: string;
}

function containerList(q: Quantities, kind: ListKind, container: Container, path: string, status: StatusRef | undefined, infeasible: boolean): NanoAmounts {
  if (kind === 'actuated' && status?.status.resources?.requests) {
    return listNanos(q, status.status.resources.requests, `${status.path}.resources.requests`);
  }
  if (kind !== 'spec' && status?.status.allocatedResources) return listNanos(q, status.status.allocatedResources, `${status.path}.allocatedResources`);
  if (kind !== 'spec' && infeasible) return new Map();
  return containerSpecRequests(q, container, path);
}

/** A ledger amount in nano units of the resource's base unit (cpu: millicores → 10^6 nanos each). */
function ledgerToNanos(name: string, amount: bigint): bigint {
  return amount * (resourceUnit(name) === 'millicores' ? 1_000_000n : 1_000_000_000n);
}

/** The registry's non-zero scoring defaults (cpu and memory), in nano units. */
const NON_MISSING: ReadonlyMap<string, bigint> = new Map(
  Object.entries(NAMED_RESOURCES).flatMap(([name, facts]) => (facts.nonZeroDefault === undefined ? [] : [[name, ledgerToNanos(name, facts.nonZeroDefault)] as const])),
);

const NO_DEFAULTS: ReadonlyMap<string, bigint> = new Map();

function applyNonMissing(own: NanoAmounts, defaults: ReadonlyMap<string, bigint>): void {
  for (const [name, nanos] of defaults) if (!own.has(name)) own.set(name, nanos);
}

/**
 * Which non-zero defaults a container without that request counts for. `'every-container'`: both, always (upstream
 * resourceAllocationScorer.calculatePodResourceRequest, the incoming pod's score request). `true`: upstream
 * getNonMissingContainerRequests as PodInfo.CalculateResource calls it for a pod's share of NonZeroRequested: both
 * without pod-level requests; with pod-level requests set (IsPodLevelRequestsSet), only cpu and memory that are
 * missing from the whole pod's requests.
 */
function nonMissingDefaults(q: Quantities, pod: PodObject, nonZero: NonZeroRule | undefined): ReadonlyMap<string, bigint> {
  if (nonZero === undefined || nonZero === false) return NO_DEFAULTS;
  if (nonZero === 'every-container' || !podLevelRequestsSet(q, pod)) return NON_MISSING;
  const requests = effectivePodRequests(pod, { quantities: q.memo });
  return new Map([...NON_MISSING].filter(([name]) => !requests.has(name)));
}

/**
 * upstream resourcehelper.IsPodLevelRequestsSet after apiserver defaulting (defaultPodRequests): pod-level requests
 * name a supported resource, or pod-level limits are set and the defaulting fills requests from them (a supported
 * limit) or from the containers (cpu or memory they request).
 */
function podLevelRequestsSet(q: Quantities, pod: PodObject): boolean {
  const spec = pod.spec;
  const resources = spec?.resources;
  if (!spec || !resources) return false;
  if (resources.requests && Object.keys(resources.requests).some(isPodLevelResource)) return true;
  const limits = Object.keys(resources.limits ?? {});
  if (limits.length === 0) return false;
  if (limits.some(isPodLevelResource)) return true;
  try {
    const aggregate = containerAggregate(q, pod, spec, NO_DEFAULTS);
    return aggregate.has(CPU) || aggregate.has('memory');
  } catch {
    return true;
  }
}

/** The `nonZero` rules: see `nonMissingDefaults`. */
export type NonZeroRule = boolean | 'every-container';

interface AggregateContext {
  q: Quantities;
  kind: ListKind;
  infeasible: boolean;
  /** The scoring defaults a container missing that request counts (empty: plain requests). */
  defaults: ReadonlyMap<string, bigint>;
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
  const own = containerList(ctx.q, ctx.kind, container, `${field}[${index}]`, ctx.statuses.get(container.name), ctx.infeasible);
  if (ctx.defaults.size > 0) applyNonMissing(own, ctx.defaults);
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
export function hasResizeStatus(pod: PodObject): boolean {
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
function containerAggregate(q: Quantities, pod: PodObject, spec: NonNullable<PodObject['spec']>, defaults: ReadonlyMap<string, bigint>): NanoAmounts {
  const infeasible = isResizeInfeasible(pod);
  if (!infeasible && !hasResizeStatus(pod)) return aggregateContainers(spec, { q, kind: 'spec', infeasible: false, defaults, statuses: NO_STATUSES });
  const statuses = statusRefs(pod);
  const specTotal = aggregateContainers(spec, { q, kind: 'spec', infeasible: false, defaults, statuses });
  const podStatus = pod.status!;
  let allocated: NanoAmounts;
  let actuated: NanoAmounts;
  if (podStatus.allocatedResources && podStatus.resources?.requests) {
    allocated = listNanos(q, podStatus.allocatedResources, 'status.allocatedResources');
    actuated = listNanos(q, podStatus.resources.requests, 'status.resources.requests');
  } else {
    allocated = aggregateContainers(spec, { q, kind: 'allocated', infeasible, defaults, statuses });
    actuated = aggregateContainers(spec, { q, kind: 'actuated', infeasible, defaults, statuses });
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
function applyPodLevelRequests(q: Quantities, total: NanoAmounts, pod: PodObject, resources: { requests?: ResourceList; limits?: ResourceList }): void {
  const overrides: NanoAmounts = new Map();
  for (const [name, from] of podLevelSources(resources, (name) => total.has(name))) {
    overrides.set(name, from === 'requests' ? nanosAt(q, resources.requests!, name, 'spec.resources.requests') : nanosAt(q, resources.limits!, name, 'spec.resources.limits'));
  }
  if (overrides.size === 0) return;
  for (const [name, nanos] of podLevelWithStatus(q, pod, overrides)) if (isPodLevelResource(name)) total.set(name, nanos);
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
export function podLevelRequestedResources(pod: PodObject, quantities?: QuantityMemo): ReadonlySet<string> {
  const q: Quantities = { memo: quantities };
  const spec = pod.spec;
  const resources = spec?.resources;
  if (!spec || !resources || (!resources.requests && !resources.limits)) return NO_NAMES;
  let aggregate: NanoAmounts | null | undefined;
  const containersRequest = (name: string): boolean => {
    if (aggregate === undefined) {
      try {
        aggregate = containerAggregate(q, pod, spec, NO_DEFAULTS);
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
function podLevelWithStatus(q: Quantities, pod: PodObject, spec: NanoAmounts): NanoAmounts {
  const status = pod.status;
  if (!status || (status.resources === undefined && status.allocatedResources === undefined)) return spec;
  const overhead = pod.spec?.overhead;
  const withoutOverhead = (list: ResourceList | undefined, path: string): NanoAmounts | undefined => {
    if (!list) return undefined;
    const amounts = listNanos(q, list, path);
    if (overhead) {
      for (const name of Object.keys(overhead)) {
        const current = amounts.get(name);
        if (current === undefined) continue;
        const left = current - nanosAt(q, overhead, name, 'spec.overhead');
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
    amounts.set(name, resourceUnit(name) === 'millicores' ? toMilliCeil(q) : toUnitsCeil(q));
  }
  return amounts;
}

/**
 * The pod's requests in ledger units (cpu millicores, others whole units). Throws QuantityError with a pod-relative
 * path. `nonZero`: a scoring variant (only its cpu and memory are read; see `nonMissingDefaults`).
 */
export function effectivePodRequests(pod: PodObject, options: { nonZero?: NonZeroRule; quantities?: QuantityMemo } = {}): ResourceAmounts {
  const q: Quantities = { memo: options.quantities };
  const spec = pod.spec;
  if (!spec) return new Map();
  const total = containerAggregate(q, pod, spec, nonMissingDefaults(q, pod, options.nonZero));
  if (spec.resources) applyPodLevelRequests(q, total, pod, spec.resources);
  const overhead = spec.overhead;
  if (overhead) {
    for (const name of Object.keys(overhead)) addNanos(total, name, nanosAt(q, overhead, name, 'spec.overhead'));
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
  const q: Quantities = PARSE_EACH;
  const spec = pod.spec;
  const resources = spec?.resources;
  if (!spec || !resources || (!resources.requests && !resources.limits)) return undefined;
  const containers = aggregateContainers(spec, { q, kind: 'spec', infeasible: false, defaults: NO_DEFAULTS, statuses: NO_STATUSES });
  const podLevel = new Map<string, bigint>();
  for (const [name, from] of podLevelSources(resources, (n) => containers.has(n))) {
    podLevel.set(name, from === 'requests' ? nanosAt(q, resources.requests!, name, 'spec.resources.requests') : nanosAt(q, resources.limits!, name, 'spec.resources.limits'));
  }
  return podLevel.size === 0 ? undefined : { podLevel, containers };
}
