/** The DRA ledger tests' fixtures: a ledger with their options, the worked example loaded and fed, amount helpers. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DeviceClassObject, PodObject, ResourceClaimObject, ResourceSliceObject } from '../../../src/ledger/objects.js';
import { DraLedger } from '../../../src/ledger/dra/dra-ledger.js';
import type { DraLedgerHooks, DraLedgerOptions } from '../../../src/ledger/dra/dra-types.js';
import { resourceAmount } from '../../../src/ledger/resource-amounts.js';
import { NUMA } from '../../support/dra-builders.js';

export const T0 = Date.parse('2026-07-20T10:15:00Z');

export function newLedger(
  overrides: Partial<DraLedgerOptions> = {},
  onDuplicate?: (info: { claimUid: string; node: string; reason: string }) => void,
  onDivergence?: DraLedgerHooks['onDivergence'],
): DraLedger {
  return new DraLedger(
    { numaAttributes: [NUMA, 'resource.kubernetes.io/numaNode'], freshnessWindowMs: 30_000, now: () => T0, ...overrides },
    { onDuplicate, onDivergence },
  );
}

export interface ExampleObjects {
  classes: DeviceClassObject[];
  slices: ResourceSliceObject[];
  claims: ResourceClaimObject[];
  pods: PodObject[];
}

export function loadExample(): ExampleObjects {
  const path = fileURLToPath(new URL('../../fixtures/dra-v1.36-example.json', import.meta.url));
  const list = JSON.parse(readFileSync(path, 'utf8')) as { items: Array<{ kind: string }> };
  const of = <T>(kind: string): T[] => list.items.filter((i) => i.kind === kind) as T[];
  return {
    classes: of<DeviceClassObject>('DeviceClass'),
    slices: of<ResourceSliceObject>('ResourceSlice'),
    claims: of<ResourceClaimObject>('ResourceClaim'),
    pods: of<PodObject>('Pod'),
  };
}

export function feed(ledger: DraLedger, objects: ExampleObjects): DraLedger {
  ledger.replaceDeviceClasses(objects.classes);
  ledger.replaceSlices(objects.slices);
  ledger.replacePods(objects.pods);
  ledger.replaceClaims(objects.claims);
  return ledger;
}

export function amounts(list: Record<string, string>): Map<string, bigint> {
  return new Map(Object.entries(list).map(([k, v]) => [k, resourceAmount(k, v)]));
}

export function plain(m: ReadonlyMap<string, bigint> | undefined): Record<string, string> {
  return Object.fromEntries([...(m ?? new Map<string, bigint>())].filter(([, v]) => v !== 0n).map(([k, v]) => [k, String(v)]));
}

export function expectAmounts(list: Record<string, string>): Record<string, string> {
  return plain(amounts(list));
}

