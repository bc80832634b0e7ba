/**
 * The DRA rules hold in the fast kernels: the filter verb (slot scan, assessor, verdict memo, DRA rows) and the fit
 * path agree, on any small DRA cluster, with an exact oracle written from the upstream rules in bigint arithmetic:
 * - the DynamicResources Filter's refusals come first (a claim allocated elsewhere, claims the allocator cannot
 *   satisfy, a pod-level request that does not cover containers plus claims: validatePodLevelRequestsCoverDRA), all
 *   UnschedulableAndUnresolvable;
 * - a node whose DRA use is unknown since a restart refuses, resolvably, a pod requesting what it may consume;
 * - then NodeResourcesFit's fitsRequest (test/support/upstream-oracle.ts) over the node's requested totals plus its DRA
 *   use, for a demand that adds the pod's DRA footprint (getPodNodeAllocatableResourceFootprint) to every resource the
 *   pod does not request at pod level.
 * The footprint itself is the DRA ledger's (the allocator's choice has table tests of its own).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { NodeView } from '../../src/ledger/node-entry.js';
import type { PodEntry } from '../../src/ledger/pod-entry.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { mayBeUnknown } from '../../src/ledger/dra-port.js';
import { podLevelRequestedResources } from '../../src/ledger/pod-requests.js';
import { assessFit } from '../../src/scheduling/fit.js';
import { filter } from '../../src/scheduling/filter.js';
import { incomingPodFromWire } from '../../src/scheduling/incoming-pod.js';
import { compareResources } from '../../src/scheduling/reasons.js';
import { namesArgs, node, pod, schedulingOptions, wire } from '../support/builders.js';
import { newLedger } from '../ledger/dra/builders.js';
import { claim, deviceClass, result, slice } from '../support/dra-builders.js';

const GPU = 'gpu.example.com';
const OPTIONS = schedulingOptions();

interface Expected {
  fits: boolean;
  reason?: string;
  unresolvable?: boolean;
}

/** The exact rules, in upstream order, over the ledger's exact totals. */
function oracle(ledger: ClusterLedger, entry: NodeView, incoming: PodEntry): Expected {
  const dra = ledger.draAccounting();
  const usesClaims = (incoming.object.spec?.resourceClaims?.length ?? 0) > 0;
  const footprint = usesClaims ? dra.assessPod(incoming.object, entry.name) : { footprint: new Map<string, bigint>(), refusal: undefined };
  const refusal = footprint.refusal;
  if (refusal) {
    const reason = {
      claim_not_available: 'resourceclaim not available on the node',
      cannot_allocate: 'cannot allocate all claims',
      claim_shared: 'DRA claim with node-allocatable mappings is in use by another pod',
      pod_level_budget: `pod level request for ${refusal.resource} is insufficient to cover the aggregated container and node-allocatable DRA requests`,
    }[refusal.code];
    return { fits: false, reason, unresolvable: true };
  }
  const unknown = dra.unknownUse().get(entry.name);
  const wants = new Map(incoming.requests);
  const podLevel = podLevelRequestedResources(incoming.object);
  for (const [r, amount] of footprint.footprint) if (amount > 0n && !podLevel.has(r)) wants.set(r, (wants.get(r) ?? 0n) + amount);
  if (unknown && [...incoming.requests, ...footprint.footprint].some(([r, a]) => a > 0n && mayBeUnknown(unknown, r))) {
    return { fits: false, reason: 'DRA use unknown', unresolvable: false };
  }
  const reasons: string[] = [];
  let unresolvable = false;
  const allowed = entry.allocatable.get('pods') ?? 0n;
  if (BigInt(entry.pods.size) + 1n > allowed) reasons.push('Too many pods');
  const draUsed = dra.nodeUsed(entry.name) ?? new Map<string, bigint>();
  for (const r of [...wants.keys()].filter((r) => r !== 'pods').sort(compareResources)) {
    const want = wants.get(r)!;
    if (want <= 0n) continue;
    const used = (entry.requested.get(r) ?? 0n) + (draUsed.get(r) ?? 0n);
    const allocatable = entry.allocatable.get(r) ?? 0n;
    if (want > allocatable - used) {
      reasons.push(`Insufficient ${r}`);
      if (want > allocatable) unresolvable = true;
    }
  }
  return reasons.length === 0 ? { fits: true } : { fits: false, reason: reasons.join(', '), unresolvable };
}

const caseArb = fc.record({
  allocatable: fc.record({ cpu: fc.constantFrom('4', '8', '16'), memory: fc.constantFrom('16Gi', '64Gi') }),
  gpus: fc.array(fc.record({ cpu: fc.constantFrom('500m', '1', '2', '6'), memory: fc.constantFrom('1Gi', '4Gi') }), { minLength: 1, maxLength: 4 }),
  /** How many GPUs bound pods hold (from the first one), and whether their pods report status. */
  held: fc.nat(3),
  withStatus: fc.boolean(),
  /** Restarted with the GPU driver's slices missing (held claims then have an unknown price unless reported). */
  slicesMissing: fc.boolean(),
  boundCpu: fc.constantFrom('0', '1', '3'),
  want: fc.record({ cpu: fc.constantFrom('0', '500m', '1', '4'), memory: fc.constantFrom('0', '1Gi', '8Gi'), gpus: fc.constantFrom(0, 1, 2, 3), podLevelCpu: fc.constantFrom(undefined, '1', '3', '8') }),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function clusterOf(c: Case): { ledger: ClusterLedger; incoming: PodObject } {
  const dra = newLedger();
  const ledger = new ClusterLedger({ dra });
  const devices = c.gpus.map((g, i) => ({ name: `g${i}`, nodeAllocatableResourceMappings: { cpu: { allocationMultiplier: g.cpu }, memory: { allocationMultiplier: g.memory } } }));
  const held = Math.min(c.held, devices.length);
  const bound: PodObject[] = [pod('ns', 'plain', { uid: 'uid-plain', node: 'n1', cpu: c.boundCpu })];
  const claims = [];
  for (let i = 0; i < held; i++) {
    const holder = pod('ns', `h${i}`, { uid: `uid-h${i}`, rv: '1', node: 'n1', claims: [{ name: 'g', claimName: `held-${i}` }] });
    if (c.withStatus) holder.status = { ...holder.status, nodeAllocatableResourceClaimStatuses: [{ resourceClaimName: `held-${i}`, containers: ['c'], resources: { cpu: c.gpus[i]!.cpu, memory: c.gpus[i]!.memory } }] };
    bound.push(holder);
    claims.push(claim('ns', `held-${i}`, `uid-held-${i}`, { results: [result(GPU, 'n1', `g${i}`)], node: 'n1', reservedFor: [`uid-h${i}`] }));
  }
  const requests = c.want.gpus > 0 ? [{ name: 'g', exactly: { deviceClassName: GPU, count: c.want.gpus } }] : [];
  if (requests.length > 0) claims.push(claim('ns', 'want', 'uid-want', { requests }));
  const incoming = pod('ns', 'p', { uid: 'uid-p', rv: '7', cpu: c.want.cpu, memory: c.want.memory, ...(requests.length > 0 ? { claims: [{ name: 'x', claimName: 'want' }] } : {}) });
  if (c.want.podLevelCpu !== undefined) incoming.spec!.resources = { requests: { cpu: c.want.podLevelCpu } };
  ledger.applyBatch([
    { type: 'replaced', kind: 'Node', objects: [node('n1', { ...c.allocatable, pods: '110' })] },
    { type: 'replaced', kind: 'DeviceClass', objects: [deviceClass(GPU, GPU)] },
    { type: 'replaced', kind: 'ResourceSlice', objects: c.slicesMissing ? [] : [slice('gpus', 'n1', GPU, devices)] },
    { type: 'replaced', kind: 'ResourceClaim', objects: claims },
    { type: 'replaced', kind: 'Pod', objects: bound },
  ]);
  return { ledger, incoming };
}

describe('DRA rules in the fast kernels agree with the exact oracle (property)', () => {
  it('filter and the fit path answer as the upstream rules computed exactly, for any small DRA node and pod', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const { ledger, incoming } = clusterOf(c);
        const entry = podEntryOf(incoming);
        const expected = oracle(ledger, ledger.node('n1')!, entry);
        const verdict = assessFit(ledger, ledger.node('n1'), entry, OPTIONS);
        assert.equal(verdict.fits, expected.fits, JSON.stringify({ verdict, expected }));
        if (!verdict.fits) assert.deepEqual([verdict.reason, verdict.unresolvable], [expected.reason, expected.unresolvable]);
        const reply = filter(ledger, namesArgs(incoming, ['n1']), OPTIONS).result;
        const failed = reply.FailedNodes?.['n1'] ?? reply.FailedAndUnresolvableNodes?.['n1'];
        assert.equal(reply.NodeNames?.includes('n1') ?? false, expected.fits);
        if (!expected.fits) {
          assert.equal(failed, expected.reason);
          assert.equal(reply.FailedAndUnresolvableNodes?.['n1'] !== undefined, expected.unresolvable);
        }
      }),
      { numRuns: 400 },
    );
  });
});

function podEntryOf(object: PodObject): PodEntry {
  return incomingPodFromWire(wire(object));
}
