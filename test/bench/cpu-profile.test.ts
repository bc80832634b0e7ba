import assert from 'node:assert/strict';
import { renderProfile, summarizeProfile, type CpuProfile } from './cpu-profile.js';

const frame = (functionName: string, url = '') => ({ functionName, url });

// Samples every 1000 µs: 4 in "load" (the first 4 ms), then 6 in the measured window.
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)') },
    { id: 2, callFrame: frame('loadManifests', 'file:///repo/src/cluster/snapshot/manifest-loader.ts') },
    { id: 3, callFrame: frame('assessFit', 'file:///repo/src/scheduling/fit.ts') },
    { id: 4, callFrame: frame('(garbage collector)') },
  ],
  startTime: 0,
  endTime: 10_000,
  samples: [2, 2, 2, 2, 3, 3, 3, 4, 3, 4],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe('CPU profile summary', () => {
  it('ranks functions by self samples inside the last window only, with repo-relative locations', () => {
    const summary = summarizeProfile(PROFILE, 0.006, '/repo');
    assert.equal(summary.samples, 6);
    assert.deepEqual(summary.top.map((e) => [e.function, e.share]), [
      ['assessFit src/scheduling/fit.ts', 4 / 6],
      ['(garbage collector)', 2 / 6],
    ]);
    assert.match(renderProfile(summary, 'filter'), /\| `assessFit src\/scheduling\/fit.ts` \| 66\.7% \|/);
  });
});
