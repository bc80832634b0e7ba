/**
 * The ledger half of the kind table: for every kind, an upsert, a delete and a replace reach that kind's store in the
 * ClusterLedger (its own node and pod stores, DRA accounting, the disruption budgets), and only that store. The
 * per-kind probes are typed as a complete table, so a new kind does not compile until it has one here.
 */
import assert from 'node:assert/strict';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { ClusterChange } from '../../src/ledger/changes.js';
import { NO_DRA, type DraAccounting } from '../../src/ledger/dra-port.js';
import { ALL_KINDS } from '../../src/ledger/kinds.js';
import { objectKey, type ClusterObject, type ClusterObjectKind, type ObjectsByKind } from '../../src/ledger/objects.js';

type DraKind = 'ResourceSlice' | 'ResourceClaim' | 'DeviceClass';

/** DRA accounting that only remembers which keys of each DRA kind it holds. */
function recordingDra(): { dra: DraAccounting; held: Record<DraKind, Set<string>> } {
  const held: Record<DraKind, Set<string>> = { ResourceSlice: new Set(), ResourceClaim: new Set(), DeviceClass: new Set() };
  const key = (o: { metadata: { name?: string; namespace?: string } }): string => objectKey(o.metadata);
  const replace = (kind: DraKind, all: Array<{ metadata: { name?: string; namespace?: string } }>): void => {
    held[kind] = new Set(all.map(key));
  };
  const dra: DraAccounting = {
    ...NO_DRA,
    upsertSlice: (o) => void held.ResourceSlice.add(key(o)),
    deleteSlice: (k) => void held.ResourceSlice.delete(k),
    replaceSlices: (all) => replace('ResourceSlice', all),
    upsertClaim: (o) => void held.ResourceClaim.add(key(o)),
    deleteClaim: (k) => void held.ResourceClaim.delete(k),
    replaceClaims: (all) => replace('ResourceClaim', all),
    upsertDeviceClass: (o) => void held.DeviceClass.add(key(o)),
    deleteDeviceClass: (k) => void held.DeviceClass.delete(k),
    replaceDeviceClasses: (all) => replace('DeviceClass', all),
  };
  return { dra, held };
}

type Held = ReturnType<typeof recordingDra>['held'];

interface Probe<K extends ClusterObjectKind> {
  object: ObjectsByKind[K];
  /** Whether the kind's store holds anything (so an object routed to another kind's store shows there). */
  holds(ledger: ClusterLedger, dra: Held): boolean;
}

const PROBES: { [K in ClusterObjectKind]: Probe<K> } = {
  Node: {
    object: { metadata: { name: 'n1', resourceVersion: '1' }, status: { allocatable: { cpu: '4' } } },
    holds: (ledger) => [...ledger.knownNodes()].length > 0,
  },
  Pod: {
    object: { metadata: { name: 'p1', namespace: 'ns', uid: 'u1', resourceVersion: '2' }, spec: { containers: [{ name: 'c' }] }, status: { phase: 'Pending' } },
    holds: (ledger) => [...ledger.pods()].length > 0,
  },
  ResourceSlice: {
    object: { metadata: { name: 's1', resourceVersion: '3' }, spec: { driver: 'd', pool: { name: 'p', generation: 1, resourceSliceCount: 1 } } },
    holds: (_ledger, dra) => dra.ResourceSlice.size > 0,
  },
  ResourceClaim: { object: { metadata: { name: 'c1', namespace: 'ns', resourceVersion: '4' } }, holds: (_ledger, dra) => dra.ResourceClaim.size > 0 },
  DeviceClass: { object: { metadata: { name: 'd1', resourceVersion: '5' } }, holds: (_ledger, dra) => dra.DeviceClass.size > 0 },
  PodDisruptionBudget: {
    object: { metadata: { name: 'b1', namespace: 'ns', resourceVersion: '6' }, spec: { selector: {} } },
    holds: (ledger) => ledger.disruptionBudgets().size > 0,
  },
};

function setup() {
  const { dra, held } = recordingDra();
  const seen: string[] = [];
  const ledger = new ClusterLedger({ dra }, { onChange: (kind, type) => seen.push(`${type} ${kind}`) });
  const holding = (): ClusterObjectKind[] => ALL_KINDS.filter((kind) => PROBES[kind].holds(ledger, held));
  return { ledger, seen, holding };
}

describe('the ledger half of the kind table routes every kind to its store', () => {
  for (const kind of ALL_KINDS) {
    const object = PROBES[kind].object as ClusterObject;
    const key = objectKey(object.metadata);

    it(`${kind}: upsert stores it, delete removes it, replace makes the store exactly the given objects`, () => {
      const { ledger, seen, holding } = setup();
      const steps: Array<{ change: ClusterChange; holds: ClusterObjectKind[] }> = [
        { change: { type: 'upsert', kind, object: structuredClone(object) }, holds: [kind] },
        { change: { type: 'delete', kind, key }, holds: [] },
        { change: { type: 'replaced', kind, objects: [structuredClone(object)] }, holds: [kind] },
        { change: { type: 'replaced', kind, objects: [] }, holds: [] },
      ];
      for (const step of steps) {
        ledger.apply(step.change);
        assert.deepEqual(holding(), step.holds, `after ${step.change.type}`);
      }
      assert.deepEqual(seen, [`upsert ${kind}`, `delete ${kind}`, `replaced ${kind}`, `replaced ${kind}`]);
    });
  }
});
