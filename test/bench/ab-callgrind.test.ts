import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callgrindSummary, callgrindTarget, countsPer, parseCallgrindTotals, startedUnder, type CallgrindCounts } from './ab-callgrind.js';

// A dump as callgrind 3.19 writes it with --cache-sim=yes when asked after `--instr=off`: `summary: 0`, the costs in `totals:`.
const DUMP = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  /usr/bin/node ledger-child.js
part: 1

desc: I1 cache: 32768 B, 64 B, 8-way associative
positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
summary: 0

fn=(below main)
0 5 1 1 0 0 0 0 0 0 1 0 0 0
totals: 2000000 700000 300000 10000 20000 5000 50 250 3300 400000 6000 20000 1000
`;

const counts = (estimatedCycles: number, instructions = estimatedCycles): CallgrindCounts =>
  ({ estimatedCycles, instructions, l1Misses: 100, lastLevelMisses: 10, branchMisses: 5 });

describe('A/B bench counting mode (callgrind)', () => {
  it('reads the totals under the event names of the dump', () => {
    const totals = parseCallgrindTotals(DUMP);
    assert.equal(totals.get('Ir'), 2_000_000);
    assert.equal(totals.get('D1mr'), 20_000);
    assert.equal(totals.get('DLmw'), 3300);
    assert.equal(parseCallgrindTotals('events: Ir Dr\nsummary: 7 8\n').get('Dr'), 8);
    assert.throws(() => parseCallgrindTotals('events: Ir\n'), /no events or totals line/);
    assert.throws(() => parseCallgrindTotals('events: Ir\nsummary: 1 2\n'), /2 totals for 1 events/);
  });

  it('counts per unit, L1 and last-level misses of instructions and data together, cycles estimated as KCachegrind does', () => {
    const perPod = countsPer(parseCallgrindTotals(DUMP), 100);
    assert.deepEqual(perPod, {
      instructions: 20_000,
      l1Misses: 350, // (10000 + 20000 + 5000) / 100
      lastLevelMisses: 36, // (50 + 250 + 3300) / 100
      branchMisses: 70, // (6000 conditional + 1000 indirect) / 100
      estimatedCycles: 20_000 + 10 * (350 + 70) + 100 * 36,
    });
    assert.throws(() => countsPer(parseCallgrindTotals('events: Ir\nsummary: 5\n'), 1), /no I1mr count \(run with --cache-sim=yes --branch-sim=yes\)/);
  });

  it('summarises as means over the rounds and their ratio, with the ratio of each round beside', () => {
    const line = callgrindSummary('loop', [
      { head: counts(99), base: counts(100) }, { head: counts(102), base: counts(100) }, { head: counts(300), base: counts(400) }]);
    // (99 + 102 + 300) / 3 = 167, (100 + 100 + 400) / 3 = 200: a pass that caught a collection weighs what it cost.
    assert.match(line, /^loop \(callgrind counts, means over 3 rounds\): estimated cycles head 167, base 200, head\/base 0\.835 \(rounds: 0\.990 1\.020 0\.750\)/);
    assert.match(line, /; instructions head 167, base 200, head\/base 0\.835/);
  });

  it('writes a wrapper that runs node under callgrind, counting nothing until told, and clears an earlier run\'s dumps', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ab-callgrind-'));
    try {
      writeFileSync(join(dir, 'head.callgrind.3'), 'stale');
      const target = callgrindTarget(dir, 'head', "/opt/node's/bin/node");
      assert.throws(() => statSync(join(dir, 'head.callgrind.3')), /ENOENT/);
      assert.equal(target.outFile, join(dir, 'head.callgrind'));
      const script = readFileSync(target.wrapper, 'utf8');
      assert.match(script, /^#!\/bin\/sh\nexec valgrind --tool=callgrind --instr-atstart=no --cache-sim=yes /);
      assert.match(script, /--LL=33554432,16,64 --branch-sim=yes/);
      assert.ok(script.includes(`--callgrind-out-file=${target.outFile} '/opt/node'"'"'s/bin/node' "$@"`), script);
      assert.equal(statSync(target.wrapper).mode & 0o111, 0o111);
      // The quoting is the shell's: the quoted word comes back whole.
      assert.equal(execFileSync('sh', ['-c', `printf %s '/opt/node'"'"'s/bin/node'`], { encoding: 'utf8' }), "/opt/node's/bin/node");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('points process.execPath at the wrapper only while the target starts, even when starting fails', async () => {
    const node = process.execPath;
    const target = { wrapper: '/tmp/wrapper.sh', outFile: '/tmp/out' };
    assert.equal(await startedUnder(target, async () => process.execPath), '/tmp/wrapper.sh');
    assert.equal(process.execPath, node);
    await assert.rejects(startedUnder(target, async () => { throw new Error('no start'); }), /no start/);
    assert.equal(process.execPath, node);
  });
});
