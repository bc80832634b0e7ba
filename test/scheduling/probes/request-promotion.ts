/**
 * Run in a process of its own by request-garbage.test.ts (a fresh heap, like a server after its load; other tests'
 * objects would otherwise be promoted alongside): makes 20k long-lived pod entries, then compiles request pods parsed
 * from bodies as the filter does, scavenging as it goes, and prints how many bytes old space grew (least of three).
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import { CycleCache } from '../../../src/scheduling/cycle-cache.js';
import { podEntryFromObject } from '../../../src/ledger/pod-entry.js';
import type { PodObject } from '../../../src/ledger/objects.js';
import { pod, wire } from '../../support/builders.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;

function oldSpaceUsed(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
}

// As a request brings it: parsed from the body (JSON.parse output has no allocation site to pretenure).
const bodies = Array.from({ length: 100 }, (_, i) => JSON.stringify(pod('default', `incoming-${i}`, { cpu: `${i + 1}m`, memory: '1Gi' })));

/** The request path's memory: the cycle cache keeps the last call's pod and demand, no more. */
const cache = new CycleCache();
const ledger = new ClusterLedger();

function promotedOver(calls: number): number {
  const before = oldSpaceUsed();
  for (let i = 0; i < calls; i++) {
    cache.begin(ledger);
    cache.demandOf(cache.incomingPod(wire(JSON.parse(bodies[i % bodies.length]!) as PodObject)), ledger.nodeTable().resources);
    if (i % 100 === 99) collect({ type: 'minor' });
  }
  collect({ type: 'minor' });
  collect({ type: 'minor' });
  return oldSpaceUsed() - before;
}

// Long-lived entries as a load makes them, surviving scavenges: V8 pretenures a literal they share with requests.
const kept: unknown[] = [];
for (let i = 0; i < 20_000; i++) kept.push(podEntryFromObject(pod('default', `bound-${i}`, { cpu: '100m', node: 'node-a' })));
collect({ type: 'minor' });
collect({ type: 'minor' });
promotedOver(3000); // warm-up: code and feedback of the first calls live in old space
process.stdout.write(JSON.stringify({ promoted: Math.min(promotedOver(3000), promotedOver(3000), promotedOver(3000)), kept: kept.length }));
