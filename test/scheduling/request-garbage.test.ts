/**
 * What one request leaves behind: a request's pod and everything it reaches must be collectable by a scavenge (young
 * generation) as soon as the call is over, and refusals that say the same thing must not be kept once per node.
 * Both were regressions measured over HTTP (docs/benchmark-history.md, 18270ae): every call's pod was promoted to old space
 * (a WeakMap value reaching its key; a pod-entry literal pretenured by V8 after the load), and the verdict memo held
 * 100k identical DRA refusals.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { failure } from '../../src/scheduling/fit-kernel.js';

const PROBE = fileURLToPath(new URL('./probes/request-promotion.ts', import.meta.url));

describe('a request leaves nothing a scavenge cannot collect', () => {
  it('request pods die young after 20k long-lived pod entries were made (nothing pretenured or held weakly)', function () {
    this.timeout(60_000);
    const out = execFileSync(process.execPath, ['--import', 'tsx', PROBE], { encoding: 'utf8', timeout: 50_000 });
    const { promoted, kept } = JSON.parse(out) as { promoted: number; kept: number };
    assert.equal(kept, 20_000);
    // Retained, 3000 pods (~1.5 KB each with their wire objects) are promoted: ~4.8 MB (both causes measured so).
    assert.ok(promoted < 1024 * 1024, `old space grew ${promoted} bytes over 3000 request pods`);
  });
});

describe('refusals with a detail are shared', () => {
  it('equal content gives the same verdict; any difference gives its own, with its own fields', () => {
    const detail = (claim: string) => `DRA claims cannot be served here: claim ${claim} request gpu: 0 device(s) on this node, 1 needed`;
    const a = failure([{ code: 'dra_cannot_allocate' }], false, detail('ml/a'), 'dra_cannot_allocate');
    const again = failure([{ code: 'dra_cannot_allocate' }], false, detail('ml/a'), 'dra_cannot_allocate');
    assert.equal(again, a);
    const otherDetail = failure([{ code: 'dra_cannot_allocate' }], false, detail('ml/b'), 'dra_cannot_allocate');
    const unresolvable = failure([{ code: 'dra_cannot_allocate' }], true, detail('ml/a'), 'dra_cannot_allocate');
    const otherMetric = failure([{ code: 'dra_cannot_allocate' }], false, detail('ml/a'), 'dra_paused');
    const otherReason = failure([{ code: 'dra_claims_paused' }], false, detail('ml/a'), 'dra_cannot_allocate');
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
