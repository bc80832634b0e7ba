/**
 * The scoring strategies are one table (scheduling/score-strategies.ts): every name of SCORING_STRATEGIES has its
 * scorer, a name without one does not compile, the configuration accepts exactly these names, and any other name stops
 * start-up with an error naming the key and the names it accepts (as upstream NodeResourcesFit refuses an unknown
 * scoring strategy type: noderesources/fit.go, `nodeResourceStrategyTypeMap`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { renderExtenderYaml } from '../../src/config/reference.js';
import { FIELDS } from '../../src/config/schema.js';
import { MAX_NODE_SCORE, RESOURCE_SCORERS, SCORING_STRATEGIES, type ResourceScorer, type ScoringStrategy } from '../../src/scheduling/score-strategies.js';

describe('scoring strategy table', () => {
  it('has a scorer for every listed name and no other', () => {
    assert.deepEqual(Object.keys(RESOURCE_SCORERS).sort(), [...SCORING_STRATEGIES].sort());
  });

  it('a strategy name without a scorer does not compile (the table is a Record over the names)', () => {
    // @ts-expect-error -- 'RequestedToCapacityRatio' has no scorer: the Record over the names refuses the table.
    const withExtraName: Readonly<Record<ScoringStrategy | 'RequestedToCapacityRatio', ResourceScorer>> = RESOURCE_SCORERS;
    assert.ok(withExtraName);
  });

  it('scores as upstream leastResourceScorer and mostResourceScorer (least_allocated.go, most_allocated.go)', () => {
    // requested, allocatable → score; integer division, 0 when LeastAllocated is over capacity, capped for MostAllocated.
    const cases: Array<[ScoringStrategy, number, number, number]> = [
      ['LeastAllocated', 0, 4000, MAX_NODE_SCORE],
      ['LeastAllocated', 3000, 4000, 25],
      ['LeastAllocated', 1000, 3000, 66],
      ['LeastAllocated', 5000, 4000, 0],
      ['MostAllocated', 0, 4000, 0],
      ['MostAllocated', 3000, 4000, 75],
      ['MostAllocated', 1000, 3000, 33],
      ['MostAllocated', 5000, 4000, MAX_NODE_SCORE],
    ];
    for (const [strategy, requested, allocatable, expected] of cases) {
      assert.equal(RESOURCE_SCORERS[strategy](requested, allocatable), expected, `${strategy} ${requested}/${allocatable}`);
    }
  });

  it('the configuration enum, its reference and the shipped file take the names from the table', () => {
    const field = FIELDS.find((f) => f.path === 'scheduling.scoring.strategy');
    assert.ok(field && field.rule.type === 'enum');
    assert.deepEqual([...field.rule.values], [...SCORING_STRATEGIES]);
    assert.ok(renderExtenderYaml().includes(`# ${SCORING_STRATEGIES.join(' | ')}`));
    for (const name of SCORING_STRATEGIES) assert.equal(loadConfig({ overrides: [['scheduling.scoring.strategy', name, 'test']] }).scheduling.scoring.strategy, name);
  });

  it('refuses an unknown name with an error naming the key and the accepted names', () => {
    assert.throws(
      () => loadConfig({ overrides: [['scheduling.scoring.strategy', 'RequestedToCapacityRatio', 'flag']] }),
      (err: unknown) => err instanceof ConfigError && /scheduling\.scoring\.strategy: must be one of LeastAllocated, MostAllocated, got "RequestedToCapacityRatio"/.test(err.message),
    );
  });

  it('an unknown name in the configuration file stops start-up: exit code 2 and the message on stderr', function () {
    this.timeout(30_000);
    const dir = mkdtempSync(join(tmpdir(), 'kl-strategy-'));
    try {
      const file = join(dir, 'extender.yaml');
      writeFileSync(file, 'scheduling:\n  scoring:\n    strategy: BalancedAllocation\n');
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', '--config', file], { encoding: 'utf8', timeout: 25_000 });
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, /invalid configuration: scheduling\.scoring\.strategy: must be one of LeastAllocated, MostAllocated, got "BalancedAllocation"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
