/**
 * The devices the structured allocator would give a pod's pending claims on one node (k8s.io/dynamic-resource-
 * allocation/structured, the incubating allocator as kube-scheduler 1.36 runs it in the DynamicResources Filter): one
 * exhaustive first-fit search over all of the pod's unallocated claims, requests in order, `firstAvailable`
 * subrequests in order (the first that leads to a full solution wins), devices in the allocator's visiting order
 * (pools by driver then name, slices by name, devices in slice order; incomplete and invalid pools skipped). A device
 * is a candidate when no claim holds it exclusively, its class's and the request's CEL selectors accept it, its
 * capacity takes the request (consumed-capacity.ts), its pool's counters have room (KEP-4815), its taints are
 * tolerated and the claim's constraints still hold. `allocationMode: All` takes every matching device and fails on an
 * incomplete or invalid pool. The answer is `allocated` (with the results, priced by device-pricing.ts), `failed`
 * (upstream "cannot allocate all claims"), or `inexact` when kube-ledger cannot reproduce the search here (see
 * AllocationContext.reach and docs/dra.md); callers then fall back to the conservative estimate.
 */
import type { ResourceClaimObject } from '../objects.js';
import type { ClassSelection } from './device-class.js';
import type { DeviceSelectors } from './device-cel.js';
import type { DeviceRecord, PoolState } from './device-index.js';
import { ConstraintState, taintPreventsAllocation } from './device-constraints.js';
import type { ClaimRequest, ClaimShapes, RequestAlternative } from './claim-requests.js';
import { consumeCapacity, nanosText, type ConsumedNanos } from './consumed-capacity.js';

/** upstream resourceapi.AllocationResultsMaxSize. */
export const ALLOCATION_RESULTS_MAX_SIZE = 32;
/** Search steps before kube-ledger gives up reproducing the allocator (its answer is then the conservative estimate). */
const SEARCH_BUDGET = 20_000;

export interface AllocatedView {
  isInUse(deviceKey: string): boolean;
  consumedOn(deviceKey: string): ConsumedNanos | undefined;
  isAllocated(deviceKey: string): boolean;
}

export interface AllocationContext {
  /** The node's pools in visiting order (device-index.ts comparePools). */
  pools: readonly PoolState[];
  allocated: AllocatedView;
  classOf(name: string | undefined): ClassSelection;
  selectors: DeviceSelectors;
  claimShapes: ClaimShapes;
  /** `node-local` when every device the class can select on this node is in `pools`. */
  reach(selection: ClassSelection): 'node-local' | 'unknown' | 'anywhere';
}

export interface AllocatedDevice {
  /** The request name, `request/subrequest` for a firstAvailable request. */
  request: string;
  device: DeviceRecord;
  /** Recorded for devices that allow multiple allocations (upstream sets a shareID and the consumed capacity). */
  consumedCapacity?: Record<string, string>;
}

export type AllocationOutcome =
  | { kind: 'allocated'; claims: AllocatedDevice[][] }
  | { kind: 'failed'; reason: string }
  | { kind: 'inexact'; reason: string };

export interface PendingClaim {
  key: string;
  claim: ResourceClaimObject;
}

class Stop extends Error {
  constructor(readonly outcome: Exclude<AllocationOutcome, { kind: 'allocated' }>) {
    super(outcome.reason);
  }
}

export function allocateClaims(claims: readonly PendingClaim[], ctx: AllocationContext): AllocationOutcome {
  if (claims.length === 0) return { kind: 'allocated', claims: [] };
  try {
    const search = new Search(claims, ctx);
    return search.run() ? { kind: 'allocated', claims: search.results } : { kind: 'failed', reason: 'cannot allocate all claims' };
  } catch (err) {
    if (err instanceof Stop) return err.outcome;
    throw err;
  }
}

interface RequestData {
  alternative: RequestAlternative;
  selection: ClassSelection;
  expressions: string[];
  resultName: string;
  base: string;
  sub: string | undefined;
  numDevices: number;
  /** allocationMode All: the devices, decided up front. */
  allDevices?: DeviceRecord[];
}

interface Position {
  claim: number;
  request: number;
  sub: number;
  device: number;
}

type Step = 'done' | 'no' | 'maxSize';

class Search {
  readonly results: AllocatedDevice[][];
  private readonly devices: DeviceRecord[];
  private readonly poolOf = new Map<DeviceRecord, PoolState>();
  private readonly data = new Map<string, RequestData>();
  private readonly constraints: ConstraintState[][];
  private readonly allocating = new Map<string, Set<number>>();
  private readonly allocatingCapacity = new Map<string, ConsumedNanos>();
  private readonly consumedCounters = new Map<PoolState, Map<string, Map<string, bigint>>>();
  private readonly availableCounters = new Map<PoolState, Map<string, Map<string, bigint>>>();
  private readonly selectable = new Map<string, boolean>();
  private readonly shapes: Array<readonly ClaimRequest[]>;
  private steps = 0;

  constructor(
    private readonly claims: readonly PendingClaim[],
    private readonly ctx: AllocationContext,
  ) {
    this.devices = [];
    for (const pool of ctx.pools) {
      for (const d of pool.ordered) this.poolOf.set(d, pool);
      if (pool.presentSlices !== pool.expectedSlices || pool.invalid !== undefined) continue;
      this.devices.push(...pool.ordered);
    }
    this.results = claims.map(() => []);
    this.shapes = [];
    this.constraints = [];
    claims.forEach((c, i) => this.validateClaim(c, i));
  }

  run(): boolean {
    return this.allocateOne({ claim: 0, request: 0, sub: 0, device: 0 }, false, 0) === 'done';
  }

  private validateClaim(pending: PendingClaim, index: number): void {
    const shape = this.ctx.claimShapes.shapeOf(pending.claim);
    if (shape.unknownConstraint !== undefined) throw new Stop({ kind: 'failed', reason: `claim ${pending.key}: ${shape.unknownConstraint}` });
    this.shapes.push(shape.requests);
    this.constraints.push(shape.constraints.map((c) => new ConstraintState(c)));
    let minDevices = 0;
    shape.requests.forEach((request, r) => {
      let least = Number.MAX_SAFE_INTEGER;
      request.alternatives.forEach((alternative, s) => {
        const data = this.validateRequest(pending.key, request, alternative);
        this.data.set(keyOf(index, r, s), data);
        least = Math.min(least, data.numDevices);
      });
      minDevices += request.alternatives.length === 0 ? 0 : least;
    });
    if (minDevices > ALLOCATION_RESULTS_MAX_SIZE) {
      throw new Stop({ kind: 'failed', reason: `claim ${pending.key}: ${minDevices} devices requested, more than the claim limit of ${ALLOCATION_RESULTS_MAX_SIZE}` });
    }
  }

  private validateRequest(claimKey: string, request: ClaimRequest, alternative: RequestAlternative): RequestData {
    const selection = this.ctx.classOf(alternative.deviceClassName);
    const resultName = request.firstAvailable ? `${request.name}/${alternative.name}` : request.name;
    const where = `claim ${claimKey} request ${resultName}`;
    const own = alternative.selectors ?? [];
    this.checkExact(where, selection, own, alternative.deviceClassName);
    const data: RequestData = {
      alternative,
      selection,
      expressions: [...selection.expressions, ...own.flatMap((s) => (s.cel ? [s.cel.expression] : []))],
      resultName,
      base: request.name,
      sub: request.firstAvailable ? alternative.name : undefined,
      numDevices: Math.max(0, alternative.count ?? 1),
    };
    this.applyAllocationMode(where, data);
    return data;
  }

  /** Stops as inexact where the allocator's choice cannot be reproduced: an unknown class, a non-CEL selector, devices not node-local. */
  private checkExact(where: string, selection: ClassSelection, own: NonNullable<RequestAlternative['selectors']>, className: string | undefined): void {
    if (!selection.known) throw new Stop({ kind: 'inexact', reason: `${where}: device class ${className ?? '(none)'} is unknown to kube-ledger` });
    if (own.some((s) => !s.cel)) throw new Stop({ kind: 'inexact', reason: `${where}: a selector is not a CEL expression` });
    const reach = this.ctx.reach(selection);
    if (reach !== 'node-local') {
      const why = reach === 'unknown' ? `no ResourceSlice of driver ${selection.driver ?? '(any)'} is visible` : 'its devices may come from slices not bound to one node';
      throw new Stop({ kind: 'inexact', reason: `${where}: ${why}` });
    }
  }

  /** `All` takes every matching device (their number is the request's); anything but ExactCount and All fails. */
  private applyAllocationMode(where: string, data: RequestData): void {
    const mode = data.alternative.allocationMode ?? 'ExactCount';
    if (mode === 'All') {
      data.allDevices = this.allDevicesFor(where, data);
      data.numDevices = data.allDevices.length;
    } else if (mode !== 'ExactCount') {
      throw new Stop({ kind: 'failed', reason: `${where}: unsupported allocation mode ${mode}` });
    }
  }

  private allDevicesFor(where: string, data: RequestData): DeviceRecord[] {
    const out: DeviceRecord[] = [];
    for (const pool of this.ctx.pools) {
      if (pool.presentSlices !== pool.expectedSlices) throw new Stop({ kind: 'failed', reason: `${where}: asks for all devices, but resource pool ${pool.key} is currently being updated` });
      if (pool.invalid !== undefined) throw new Stop({ kind: 'failed', reason: `${where}: asks for all devices, but resource pool ${pool.key} is currently invalid` });
      for (const device of pool.ordered) if (this.isSelectable(data, device) && this.capacityFor(data, device) !== undefined) out.push(device);
    }
    return out;
  }

  private allocateOne(at: Position, allocatingSub: boolean, start: number): Step {
    if (++this.steps > SEARCH_BUDGET) throw new Stop({ kind: 'inexact', reason: `the allocator's search took more than ${SEARCH_BUDGET} steps` });
    if (at.claim >= this.claims.length) return 'done';
    const requests = this.shapes[at.claim]!;
    if (at.request >= requests.length) {
      const next = this.allocateOne({ claim: at.claim + 1, request: 0, sub: 0, device: 0 }, false, 0);
      return next === 'maxSize' ? 'no' : next;
    }
    const request = requests[at.request]!;
    if (!allocatingSub && request.firstAvailable) return this.trySubRequests(at, request);
    return this.allocateForRequest(at, allocatingSub, start);
  }

  private allocateForRequest(at: Position, allocatingSub: boolean, start: number): Step {
    const data = this.data.get(keyOf(at.claim, at.request, at.sub))!;
    if (data.allDevices && data.allDevices.length === 0) return 'no';
    if (at.device >= data.numDevices) return this.allocateOne({ claim: at.claim, request: at.request + 1, sub: 0, device: 0 }, false, 0);
    if (this.results[at.claim]!.length + data.numDevices - at.device > ALLOCATION_RESULTS_MAX_SIZE) return 'maxSize';
    if (data.allDevices) return this.allocateAll(at, data, allocatingSub);
    return this.tryDevices(at, data, allocatingSub, start);
  }

  /** The next device of an ExactCount request: each candidate from `start` on, backtracking when the rest cannot follow. */
  private tryDevices(at: Position, data: RequestData, allocatingSub: boolean, start: number): Step {
    for (let i = start; i < this.devices.length; i++) {
      const device = this.devices[i]!;
      if (data.alternative.adminAccess ? this.allocatingFor(device, at.claim) : this.inUse(device)) continue;
      if (!this.isSelectable(data, device) || this.capacityFor(data, device) === undefined) continue;
      const undo = this.allocateDevice(at, data, device, false);
      if (!undo) continue;
      const next = this.allocateOne({ ...at, device: at.device + 1 }, allocatingSub, i + 1);
      if (next === 'done') return 'done';
      undo();
      if (next === 'maxSize') return 'maxSize';
    }
    return 'no';
  }

  private trySubRequests(at: Position, request: ClaimRequest): Step {
    let allExceeded = true;
    for (let sub = 0; sub < request.alternatives.length; sub++) {
      const step = this.allocateOne({ ...at, sub }, true, 0);
      if (step === 'maxSize') continue;
      allExceeded = false;
      if (step === 'done') return 'done';
    }
    return allExceeded ? 'maxSize' : 'no';
  }

  private allocateAll(at: Position, data: RequestData, allocatingSub: boolean): Step {
    const undo = this.allocateDevice(at, data, data.allDevices![at.device]!, true);
    if (!undo) return 'no';
    const next = this.allocateOne({ ...at, device: at.device + 1 }, allocatingSub, 0);
    if (next !== 'done') undo();
    return next;
  }

  /**
   * upstream allocateDevice. As upstream, counters a device took before a later check refused it stay taken for the
   * rest of this search, and a shared device's counters are not handed back on backtracking.
   */
  private allocateDevice(at: Position, data: RequestData, device: DeviceRecord, must: boolean): (() => void) | undefined {
    if (!this.mayAllocate(at.claim, data, device)) return undefined;
    const applied = this.applyConstraints(at.claim, data, device, must);
    if (!applied) return undefined;
    if (!device.shared) this.link(device, at.claim);
    const result: AllocatedDevice = { request: data.resultName, device };
    const consumed = device.shared ? this.consumeShared(data, device, result) : undefined;
    const results = this.results[at.claim]!;
    results.push(result);
    return () => {
      for (const c of applied) c.remove(device);
      this.allocating.get(device.key)?.delete(at.claim);
      if (consumed) this.addCapacity(device, consumed, -1n);
      else if (device.counters.length > 0) this.returnCounters(device);
      results.pop();
    };
  }

  /** Whether the device may be taken: not in use (or for admin access, not already allocating), its counters taken, its taints tolerated. */
  private mayAllocate(claim: number, data: RequestData, device: DeviceRecord): boolean {
    const admin = data.alternative.adminAccess === true;
    if (!device.shared && admin && this.allocatingFor(device, claim)) return false;
    if (!admin && this.inUse(device)) return false;
    const capacityInUse = this.ctx.allocated.consumedOn(device.key) !== undefined || this.allocatingCapacity.has(device.key);
    if (!(device.shared && capacityInUse) && device.counters.length > 0 && !this.takeCounters(device)) return false;
    return !taintPreventsAllocation(device.taints, data.alternative.tolerations ?? []);
  }

  /** Adds the device to the claim's constraints that apply; undefined (the added ones undone) when one refuses it. */
  private applyConstraints(claim: number, data: RequestData, device: DeviceRecord, must: boolean): ConstraintState[] | undefined {
    const applied: ConstraintState[] = [];
    for (const constraint of this.constraints[claim]!) {
      if (!constraint.applies(data.base, data.sub)) continue;
      if (constraint.add(device)) {
        applied.push(constraint);
        continue;
      }
      if (must) throw new Stop({ kind: 'failed', reason: `claim ${this.claims[claim]!.key}: cannot add device ${device.key} because a claim constraint would not be satisfied` });
      for (const c of applied) c.remove(device);
      return undefined;
    }
    return applied;
  }

  /** A shared device: the capacity the request consumes there, recorded in the result and added to what is allocating. */
  private consumeShared(data: RequestData, device: DeviceRecord, result: AllocatedDevice): ConsumedNanos {
    const consumed = this.capacityFor(data, device)!;
    result.consumedCapacity = Object.fromEntries([...consumed].map(([name, n]) => [name, nanosText(n)]));
    this.addCapacity(device, consumed, 1n);
    return consumed;
  }

  private isSelectable(data: RequestData, device: DeviceRecord): boolean {
    const key = `${device.key}|${data.resultName}|${data.alternative.deviceClassName ?? ''}|${data.expressions.join('\u0000')}`;
    const known = this.selectable.get(key);
    if (known !== undefined) return known;
    let matches = data.selection.driver === undefined || device.driver === data.selection.driver;
    if (matches && data.expressions.length > 0) {
      const outcome = this.ctx.selectors.evaluate(data.expressions, device.cel);
      if ('error' in outcome) throw new Stop({ kind: 'inexact', reason: `selector on device ${device.key}: ${outcome.error}` });
      matches = outcome.matches;
    }
    this.selectable.set(key, matches);
    return matches;
  }

  private capacityFor(data: RequestData, device: DeviceRecord): ConsumedNanos | undefined {
    const allocated = this.ctx.allocated.consumedOn(device.key);
    const allocating = this.allocatingCapacity.get(device.key);
    let inUse = allocated;
    if (allocating) {
      inUse = new Map(allocated ?? []);
      for (const [name, n] of allocating) inUse.set(name, (inUse.get(name) ?? 0n) + n);
    }
    try {
      return consumeCapacity(device.capacity, data.alternative.capacity?.requests, inUse);
    } catch (err) {
      throw new Stop({ kind: 'inexact', reason: `device ${device.key} capacity: ${(err as Error).message}` });
    }
  }

  private inUse(device: DeviceRecord): boolean {
    return this.ctx.allocated.isInUse(device.key) || (this.allocating.get(device.key)?.size ?? 0) > 0;
  }

  private allocatingFor(device: DeviceRecord, claim: number): boolean {
    return this.allocating.get(device.key)?.has(claim) ?? false;
  }

  private link(device: DeviceRecord, claim: number): void {
    let claims = this.allocating.get(device.key);
    if (!claims) this.allocating.set(device.key, (claims = new Set()));
    claims.add(claim);
  }

  private addCapacity(device: DeviceRecord, consumed: ConsumedNanos, sign: 1n | -1n): void {
    const total = this.allocatingCapacity.get(device.key) ?? new Map<string, bigint>();
    for (const [name, n] of consumed) total.set(name, (total.get(name) ?? 0n) + sign * n);
    if ([...total.values()].every((n) => n === 0n)) this.allocatingCapacity.delete(device.key);
    else this.allocatingCapacity.set(device.key, total);
  }

  /** upstream checkAvailableCounters: take the device's counters; give them back and refuse when any runs short. */
  private takeCounters(device: DeviceRecord): boolean {
    const pool = this.poolOf.get(device)!;
    const available = this.available(pool);
    this.moveCounters(device, 1n);
    const consumed = this.consumedCounters.get(pool)!;
    for (const [set, counters] of available) {
      for (const [name, amount] of counters) {
        if (amount < (consumed.get(set)?.get(name) ?? 0n)) {
          this.moveCounters(device, -1n);
          return false;
        }
      }
    }
    return true;
  }

  private returnCounters(device: DeviceRecord): void {
    this.moveCounters(device, -1n);
  }

  private moveCounters(device: DeviceRecord, sign: 1n | -1n): void {
    const pool = this.poolOf.get(device)!;
    let byPool = this.consumedCounters.get(pool);
    if (!byPool) this.consumedCounters.set(pool, (byPool = new Map()));
    for (const use of device.counters) {
      let set = byPool.get(use.counterSet);
      if (!set) byPool.set(use.counterSet, (set = new Map()));
      for (const [name, n] of use.counters) set.set(name, (set.get(name) ?? 0n) + sign * n);
    }
  }

  /** The pool's counter sets less what its allocated devices draw (computed once per search, as upstream caches it). */
  private available(pool: PoolState): Map<string, Map<string, bigint>> {
    let available = this.availableCounters.get(pool);
    if (available) return available;
    available = new Map([...pool.counterSets].map(([set, counters]) => [set, new Map(counters)]));
    for (const device of pool.ordered) {
      if (!this.ctx.allocated.isAllocated(device.key)) continue;
      for (const use of device.counters) {
        const set = available.get(use.counterSet);
        if (!set) continue;
        for (const [name, n] of use.counters) if (set.has(name)) set.set(name, set.get(name)! - n);
      }
    }
    this.availableCounters.set(pool, available);
    return available;
  }
}

function keyOf(claim: number, request: number, sub: number): string {
  return `${claim}/${request}/${sub}`;
}
