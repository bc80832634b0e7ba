/**
 * The settling rounds themselves (src/ledger/dra/dra-settling.ts), on a stand-in for the ledger's side: the count of
 * steps still to take, which a gauge read uses to decide whether it may settle the rest at once, never falls below
 * what is left once the marked claims have been refreshed (a phase's keys still in their set count twice: over, never
 * under), whichever phase of the round a step stops in.
 */
import assert from 'node:assert/strict';
import { DraSettling, type SettleWork } from '../../../src/ledger/dra/dra-settling.js';

function settlingOf(claims: number): { settling: DraSettling; done: string[] } {
  const done: string[] = [];
  const work: SettleWork = {
    refreshClaim: (key, touched) => {
      done.push(`refresh ${key}`);
      touched.uids.add(`uid-${key}`);
      touched.devices.add(`device-${key}`);
    },
    claimsWithUid: (uid) => [uid.slice('uid-'.length)],
    claimsOnExclusiveDevice: (device) => [device.slice('device-'.length)],
    resolveClaim: (key) => void done.push(`resolve ${key}`),
    refreshNode: (node) => void done.push(`node ${node}`),
  };
  const settling = new DraSettling(work);
  for (let i = 0; i < claims; i++) {
    settling.markClaim(`c${i}`);
    settling.markNode(`n${i}`);
  }
  return { settling, done };
}

describe('DRA settling rounds', () => {
  it('never counts fewer steps than are left once the claims are refreshed: the UIDs, devices, verdicts and nodes ahead', () => {
    const claims = 50;
    const { settling, done } = settlingOf(claims);
    // Each claim: its refresh, its UID and its device looked up, its verdict; each node: its totals.
    const total = claims * 5;
    const estimates: number[] = [];
    let steps = 0;
    while (!settling.step(1)) {
      steps++;
      estimates.push(settling.pendingSteps());
    }
    steps++;
    assert.equal(steps, total);
    assert.equal(settling.pendingSteps(), 0);
    estimates.forEach((estimate, i) => {
      const left = total - (i + 1);
      if (i + 1 >= claims) assert.ok(estimate >= left, `after step ${i + 1}: ${estimate} counted, ${left} left`);
    });
    assert.equal(done.filter((d) => d.startsWith('resolve')).length, claims);
    assert.deepEqual(done.filter((d) => d.startsWith('resolve')), [...done.filter((d) => d.startsWith('resolve'))].sort(), 'verdicts in key order');
  });
});
