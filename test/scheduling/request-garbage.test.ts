/**
 * What one request leaves behind: a request's pod and everything it reaches must be collectable by a scavenge (young
 * generation) as soon as the call is over, and refusals that say the same thing must not be kept once per node.
 * Both were regressions measured over HTTP (README "Performance"): every call's pod was promoted to old space
 * (a WeakMap value reaching its key; a pod-entry literal pretenured by V8 after the load), and the verdict memo held
 * 100k identical DRA refusals.
 */
import assert from 'node:assert/strict';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { compileDemand, failure } from '../../src/scheduling/fit-kernel.js';
import { incomingPodFromWire } from '../../src/scheduling/incoming-pod.js';
import { podEntryFromObject } from '../../src/ledger/pod-entry.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { pod, wire } from '../support/builders.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;

function oldSpaceUsed(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
}

/** Bytes old space grew by over `calls` request pods, each compiled as a scan compiles it, scavenging as they go. */
function promotedOver(calls: number): number {
  // As a request brings it: parsed from the body (JSON.parse output has no allocation site to pretenure).
  const bodies = Array.from({ length: 100 }, (_, i) => JSON.stringify(pod('default', `incoming-${i}`, { cpu: `${i + 1}m`, memory: '1Gi' })));
  const before = oldSpaceUsed();
  for (let i = 0; i < calls; i++) {
    compileDemand(incomingPodFromWire(wire(JSON.parse(bodies[i % bodies.length]!) as PodObject)));
    if (i % 100 === 99) collect({ type: 'minor' });
  }
  collect({ type: 'minor' });
  collect({ type: 'minor' });
  return oldSpaceUsed() - before;
}

describe('a request leaves nothing a scavenge cannot collect', () => {
  it('request pods die young, even after many long-lived pod entries were made (nothing pretenured or held weakly)', () => {
    // Long-lived entries as a load makes them, surviving scavenges: V8 would pretenure a literal they shared.
    const kept: unknown[] = [];
    for (let i = 0; i < 20_000; i++) kept.push(podEntryFromObject(pod('default', `bound-${i}`, { cpu: '100m', node: 'node-a' })));
    collect({ type: 'minor' });
    collect({ type: 'minor' });
    promotedOver(3000); // warm-up: code and feedback of the first calls live in old space
    const promoted = promotedOver(3000);
    // Retained, 3000 pods (~1.5 KB each with their wire objects) would be promoted: ~4 MB.
    assert.ok(promoted < 512 * 1024, `old space grew ${promoted} bytes over 3000 request pods`);
    assert.equal(kept.length, 20_000);
  });
});

describe('refusals with a detail are shared', () => {
  it('equal content gives the same verdict; any difference gives its own, with its own fields', () => {
    const detail = (claim: string) => `DRA claims cannot be served here: claim ${claim} request gpu: 0 device(s) on this node, 1 needed`;
    const a = failure([{ code: 'dra_device_missing' }], false, detail('ml/a'), 'dra_no_device');
    const again = failure([{ code: 'dra_device_missing' }], false, detail('ml/a'), 'dra_no_device');
    assert.equal(again, a);
    const otherDetail = failure([{ code: 'dra_device_missing' }], false, detail('ml/b'), 'dra_no_device');
    const unresolvable = failure([{ code: 'dra_device_missing' }], true, detail('ml/a'), 'dra_no_device');
    const otherMetric = failure([{ code: 'dra_device_missing' }], false, detail('ml/a'), 'dra_paused');
    const otherReason = failure([{ code: 'dra_claims_paused' }], false, detail('ml/a'), 'dra_no_device');
    const distinct = new Set([a, otherDetail, unresolvable, otherMetric, otherReason]);
    assert.equal(distinct.size, 5);
    assert.ok(!otherDetail.fits && otherDetail.detail === detail('ml/b'));
    assert.ok(!unresolvable.fits && unresolvable.unresolvable && unresolvable.detail === detail('ml/a'));
    assert.ok(!otherMetric.fits && otherMetric.metric === 'dra_paused');
    assert.ok(!otherReason.fits && otherReason.code === 'dra_claims_paused');
  });

  it('verdicts without a detail are not pooled (the fit kernel caches those per demand itself)', () => {
    assert.notEqual(failure([{ code: 'too_many_pods' }]), failure([{ code: 'too_many_pods' }]));
  });
});
