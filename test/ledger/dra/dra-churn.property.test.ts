/**
 * The seed's churn scenarios replayed as event sequences (property): NUMA-aligned and cross-zone allocations, releases
 * delivered more than once, a driver restart (its slices deleted, later republished with a new generation), a node
 * restart (every slice gone and back, pods re-delivered), a driver update changing a mapping under running pods, and a
 * kube-ledger restart in the middle (the ledger rebuilt
 * from the objects of that moment, then fed the rest). Bound pods carry `status.nodeAllocatableResourceClaimStatuses`
 * as a 1.36 scheduler with DRANodeAllocatableResources writes it. After EVERY step:
 * - the incremental ledger equals one rebuilt from the current objects;
 * - every claim reserved by a bound, running pod counts exactly its status amounts, once (never twice, never forgotten);
 * - the NUMA sub-ledgers plus the entries without a zone sum to the node total.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { PodObject, ResourceClaimObject, ResourceSliceObject } from '../../../src/ledger/objects.js';
import type { DraLedger } from '../../../src/ledger/dra/dra-ledger.js';
import { newLedger } from './builders.js';
import { claim, cpuDevice, deviceClass, gpuDevice, result, slice } from '../../support/dra-builders.js';
import { pod } from '../../support/builders.js';

const CPU = 'cpu.example.com';
const GPU = 'gpu.example.com';
const NODE = 'n1';

type Step =
  | { kind: 'allocate'; claim: number; cpuZone: 0 | 1; gpuZone: 0 | 1; cpus: number; podFirst: boolean }
  | { kind: 'release'; claim: number; deliveries: number }
  | { kind: 'driverRestart'; driver: typeof CPU | typeof GPU }
  | { kind: 'republish'; driver: typeof CPU | typeof GPU }
  | { kind: 'nodeRestart' }
  | { kind: 'remap' }
  | { kind: 'ledgerRestart' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('allocate' as const), claim: fc.nat(3), cpuZone: fc.constantFrom(0 as const, 1 as const), gpuZone: fc.constantFrom(0 as const, 1 as const), cpus: fc.integer({ min: 1, max: 8 }), podFirst: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('release' as const), claim: fc.nat(3), deliveries: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('driverRestart' as const), driver: fc.constantFrom(CPU, GPU) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('republish' as const), driver: fc.constantFrom(CPU, GPU) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'nodeRestart' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'remap' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'ledgerRestart' as const }) },
);

/** The cluster as the API server holds it, with monotonically growing resourceVersions. */
class World {
  constructor(readonly withStatus: boolean) {}
  slices = new Map<string, ResourceSliceObject>();
  claims = new Map<string, ResourceClaimObject>();
  pods = new Map<string, PodObject>();
  generation = { [CPU]: 1, [GPU]: 1 } as Record<string, number>;
  /** cpu a GPU allocation costs by the GPU driver's current mapping (a driver update may change it). */
  gpuCpu = 2;
  /** What each allocated claim was charged at allocation: its cpus plus the GPU's cost then. */
  charged = new Map<string, number>();
  private rv = 100;

  nextRv(): string {
    return String(++this.rv);
  }

  sliceFor(driver: string): ResourceSliceObject {
    const gpu = (name: string, zone: number) => ({ ...gpuDevice(name, zone), nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: String(this.gpuCpu) }, memory: { allocationMultiplier: '8Gi' } } });
    const devices = driver === CPU ? [cpuDevice('numa0', 0), cpuDevice('numa1', 1)] : [gpu('gpu0a', 0), gpu('gpu0b', 0), gpu('gpu1a', 1), gpu('gpu1b', 1)];
    return slice(`${NODE}-${driver}-g${this.generation[driver]}`, NODE, driver, devices, { generation: this.generation[driver] }, this.nextRv());
  }
}

function apply(ledger: DraLedger, world: World, step: Step): void {
  switch (step.kind) {
    case 'allocate': {
      const key = `ns/c${step.claim}`;
      if (world.claims.get(key)?.status?.allocation) return; // the claim is in use; the scheduler would not reallocate it
      // GPUs are exclusive: the allocator picks a free one in the wanted zone (two per zone), or the pod stays pending
      const taken = new Set([...world.claims.values()].flatMap((c) => (c.status?.allocation?.devices?.results ?? []).map((r) => r.device)));
      const gpu = [`gpu${step.gpuZone}a`, `gpu${step.gpuZone}b`].find((g) => !taken.has(g));
      if (!gpu) return;
      // without pod status the allocation is priced only from slices, which the allocator itself needs to see
      if (!world.withStatus && world.slices.size < 2) return;
      const podUid = `pod-c${step.claim}-${world.nextRv()}`;
      const claimObject = claim('ns', `c${step.claim}`, `uid-c${step.claim}`, {
        results: [
          result(CPU, NODE, `numa${step.cpuZone}`, { 'cpu.example.com/cpu': String(step.cpus), 'cpu.example.com/memory': '2Gi' }, 'cpus'),
          result(GPU, NODE, gpu, undefined, 'gpu'),
        ],
        node: NODE,
        reservedFor: [podUid],
        resourceVersion: world.nextRv(),
      });
      const bound = pod('ns', `p${step.claim}`, { uid: podUid, rv: world.nextRv(), node: NODE, claims: [{ name: 'x', claimName: `c${step.claim}` }] });
      // what the scheduler charged at binding: cpus + the GPU's cost by the mapping of the moment, 2Gi + the GPU's 8Gi
      world.charged.set(key, step.cpus + world.gpuCpu);
      if (world.withStatus) bound.status!.nodeAllocatableResourceClaimStatuses = [{ resourceClaimName: `c${step.claim}`, containers: ['c'], resources: { cpu: String(step.cpus + world.gpuCpu), memory: '10Gi' } }];
      const deliverPod = () => {
        world.pods.set(`ns/p${step.claim}`, bound);
        ledger.upsertPod(bound);
      };
      const deliverClaim = () => {
        world.claims.set(key, claimObject);
        ledger.upsertClaim(claimObject);
      };
      if (step.podFirst) {
        deliverPod();
        deliverClaim();
      } else {
        deliverClaim();
        deliverPod();
      }
      return;
    }
    case 'release': {
      const key = `ns/c${step.claim}`;
      const current = world.claims.get(key);
      if (!current) return;
      const released: ResourceClaimObject = { ...current, metadata: { ...current.metadata, resourceVersion: world.nextRv() }, status: {} };
      world.pods.delete(`ns/p${step.claim}`);
      world.claims.set(key, released);
      for (let i = 0; i < step.deliveries; i++) {
        ledger.deletePod(`ns/p${step.claim}`);
        ledger.upsertClaim(released);
        ledger.upsertClaim(current); // a retry delivering the old, reserved version again (same resourceVersion as before: no-op)
        ledger.upsertClaim(released);
      }
      return;
    }
    case 'driverRestart':
      for (const [name, s] of [...world.slices]) {
        if (s.spec.driver !== step.driver) continue;
        world.slices.delete(name);
        ledger.deleteSlice(name);
      }
      return;
    case 'republish': {
      if ([...world.slices.values()].some((s) => s.spec.driver === step.driver)) return;
      world.generation[step.driver]! += 1;
      const s = world.sliceFor(step.driver);
      world.slices.set(s.metadata.name!, s);
      ledger.upsertSlice(s);
      return;
    }
    case 'nodeRestart':
      apply(ledger, world, { kind: 'driverRestart', driver: CPU });
      apply(ledger, world, { kind: 'driverRestart', driver: GPU });
      for (const [key, p] of world.pods) {
        const again = { ...p, metadata: { ...p.metadata, resourceVersion: world.nextRv() } };
        world.pods.set(key, again);
        ledger.upsertPod(again);
      }
      apply(ledger, world, { kind: 'republish', driver: GPU });
      apply(ledger, world, { kind: 'republish', driver: CPU });
      return;
    case 'remap': {
      // the GPU driver is updated and republishes its slice with another cpu cost, under running pods
      world.gpuCpu = world.gpuCpu === 2 ? 3 : 2;
      const current = [...world.slices.values()].find((s) => s.spec.driver === GPU);
      if (!current) return;
      const s = world.sliceFor(GPU);
      world.slices.set(s.metadata.name!, s);
      ledger.upsertSlice(s);
      return;
    }
    case 'ledgerRestart':
      return; // handled by the runner: the ledger is replaced by one rebuilt from the world
  }
}

function rebuilt(world: World): DraLedger {
  const ledger = newLedger();
  ledger.replaceDeviceClasses([deviceClass(CPU, CPU), deviceClass(GPU, GPU)]);
  ledger.replacePods([...world.pods.values()]);
  ledger.replaceClaims([...world.claims.values()]);
  ledger.replaceSlices([...world.slices.values()]);
  return ledger;
}

function assertInvariants(ledger: DraLedger, world: World): void {
  // Without pod status a rebuild cannot know what a claim whose slices are gone used to cost: compare when none is carried.
  if (world.withStatus || ledger.stats().carriedOverClaims === 0) {
    assert.deepEqual(ledger.exportAll(), rebuilt(world).exportAll(), 'incremental equals rebuilt');
  }
  const state = ledger.nodeState(NODE);
  const entries = state?.entries ?? [];
  const perClaim = new Map<string, Map<string, bigint>>();
  for (const e of entries) {
    const sum = perClaim.get(e.claimUid) ?? new Map<string, bigint>();
    for (const [k, v] of e.amounts) sum.set(k, (sum.get(k) ?? 0n) + v);
    perClaim.set(e.claimUid, sum);
  }
  const expected = new Map<string, Map<string, bigint>>();
  for (const c of world.claims.values()) {
    const holder = c.status?.reservedFor?.[0]?.uid;
    const p = [...world.pods.values()].find((x) => x.metadata.uid === holder);
    if (!c.status?.allocation || !p) continue;
    expected.set(c.metadata.uid!, new Map([['cpu', BigInt(world.charged.get(`ns/${c.metadata.name}`)!) * 1000n], ['memory', 10n * 1024n ** 3n]]));
  }
  assert.deepEqual(perClaim, expected, 'each reserved claim counts what it was charged exactly once, none forgotten');
  const used = new Map([...(state?.used ?? new Map<string, bigint>())].filter(([, v]) => v !== 0n));
  const fromZones = new Map<string, bigint>();
  for (const z of state?.zones.values() ?? []) for (const [k, v] of z.used) fromZones.set(k, (fromZones.get(k) ?? 0n) + v);
  for (const e of entries) if (e.zone === undefined) for (const [k, v] of e.amounts) fromZones.set(k, (fromZones.get(k) ?? 0n) + v);
  assert.deepEqual(new Map([...fromZones].filter(([, v]) => v !== 0n)), used, 'NUMA sub-ledgers (+ unzoned entries) sum to the node total');
}

function replay(steps: Step[], withStatus: boolean): void {
  const world = new World(withStatus);
  let ledger = rebuilt(world);
  for (const driver of [CPU, GPU]) apply(ledger, world, { kind: 'republish', driver: driver as typeof CPU });
  for (const step of steps) {
    if (step.kind === 'ledgerRestart') ledger = rebuilt(world);
    else apply(ledger, world, step);
    assertInvariants(ledger, world);
  }
}

describe('DRA ledger under churn: event-sequence replay (property)', () => {
  it('with pod status: after every step equals a rebuild (kube-ledger restarts included), counts each reserved claim once, keeps NUMA sums', function () {
    this.timeout(120_000);
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 25 }), (steps) => replay(steps, true)),
      { numRuns: 150 },
    );
  });

  it('without pod status: never forgets a priced claim through driver and node restarts (carried over), equal to a rebuild once nothing is carried', function () {
    this.timeout(120_000);
    const noRestart = stepArb.filter((s) => s.kind !== 'ledgerRestart'); // a restart without status loses the memory: item 2's case
    fc.assert(
      fc.property(fc.array(noRestart, { minLength: 1, maxLength: 25 }), (steps) => replay(steps, false)),
      { numRuns: 150 },
    );
  });
});
