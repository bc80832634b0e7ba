/**
 * The wire reasons are stable strings without numbers (kube-scheduler counts identical strings), so
 * the per-node numbers live in /debug/explain and in debug logs. A filter call at debug level writes one structured
 * line with the counts by code and the first failing nodes' code and numbers; at info level the call asks the
 * logger's level once and builds nothing (the detail function is never called, no line is formatted).
 */
import assert from 'node:assert/strict';
import { createExtenderService, FAILING_NODES_LOGGED } from '../../src/app/extender-service.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { createLogger, type LogLevel, type Logger } from '../../src/observability/logger.js';
import type { FailureDescriber } from '../../src/scheduling/filter.js';
import type { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import { ledgerOf, namesArgs, node, pod, schedulingOptions } from '../support/builders.js';

/** 12 busy nodes (1 of 4 cpu free), one tiny node (250m allocatable), one with room. */
function cluster(): ClusterLedger {
  const busy = Array.from({ length: 12 }, (_, i) => `busy-${String(i).padStart(2, '0')}`);
  return ledgerOf(
    [...busy.map((name) => node(name, { cpu: '4', memory: '8Gi' })), node('tiny', { cpu: '250m', memory: '8Gi' }), node('roomy', { cpu: '4', memory: '8Gi' })],
    busy.map((name, i) => pod('ns', `hog-${i}`, { node: name, cpu: '3' })),
  );
}

const NAMES = ['tiny', ...Array.from({ length: 12 }, (_, i) => `busy-${String(i).padStart(2, '0')}`), 'roomy'];

function serviceWith(logger: Logger, describeFailure?: FailureDescriber) {
  return createExtenderService({
    ledger: cluster(),
    source: { hasSynced: () => true, freshness: () => ({}) as never },
    options: () => schedulingOptions(),
    metrics: createMetrics(),
    logger,
    ...(describeFailure ? { describeFailure } : {}),
  });
}

describe('filter debug log: per-node numbers behind the stable reasons', () => {
  it('at debug level writes one line per call: counts by code and the first failing nodes with their numbers', () => {
    const lines: string[] = [];
    const service = serviceWith(createLogger({ level: 'debug', write: (line) => lines.push(line) }));
    const result = service.filter(namesArgs(pod('ns', 'new', { cpu: '2' }), NAMES));
    assert.deepEqual(result.NodeNames, ['roomy']);
    const logged = lines.map((l) => JSON.parse(l)).filter((r) => r.msg === 'filter: failing nodes');
    assert.equal(logged.length, 1);
    const record = logged[0];
    assert.equal(record.level, 'debug');
    assert.equal(record.pod, 'ns/new');
    assert.equal(record.failing, 13);
    assert.deepEqual(record.byCode, { insufficient_resource: 13 });
    assert.equal(record.sample.length, FAILING_NODES_LOGGED, 'bounded: the first nodes only');
    assert.deepEqual(record.sample[0], { node: 'tiny', codes: ['insufficient_resource'], detail: 'Insufficient cpu: requests 2, node allocatable 250m' });
    assert.deepEqual(record.sample[1], { node: 'busy-00', codes: ['insufficient_resource'], detail: 'Insufficient cpu: requests 2, free 1 of 4' });
    // The wire keeps the stable string.
    assert.equal(result.FailedNodes?.['busy-00'], 'Insufficient cpu');
  });

  it('writes no line when every node fits', () => {
    const lines: string[] = [];
    const service = serviceWith(createLogger({ level: 'debug', write: (line) => lines.push(line) }));
    service.filter(namesArgs(pod('ns', 'new', { cpu: '100m' }), ['roomy', 'busy-00']));
    assert.equal(lines.filter((l) => l.includes('filter: failing nodes')).length, 0);
  });

  it('at info level asks the level once per call and builds nothing: the detail function is never called', () => {
    const asked: LogLevel[] = [];
    const real = createLogger({ level: 'info', write: () => assert.fail('nothing is written at info level by a filter call') });
    const logger: Logger = {
      ...real,
      isEnabled: (level) => {
        asked.push(level);
        return real.isEnabled(level);
      },
      debug: () => assert.fail('no debug call at info level'),
    };
    let described = 0;
    const service = serviceWith(logger, () => {
      described++;
      return 'never';
    });
    service.filter(namesArgs(pod('ns', 'new', { cpu: '2' }), NAMES));
    service.filter(namesArgs(pod('ns', 'new', { cpu: '2' }), NAMES));
    assert.equal(described, 0);
    assert.deepEqual(asked, ['debug', 'debug']);
  });

  it('at debug level calls the detail function for the sampled nodes only', () => {
    const seen: string[] = [];
    const service = serviceWith(createLogger({ level: 'debug', write: () => {} }), (_ledger, _pod, name) => {
      seen.push(name);
      return `numbers of ${name}`;
    });
    service.filter(namesArgs(pod('ns', 'new', { cpu: '2' }), NAMES));
    assert.deepEqual(seen, NAMES.slice(0, FAILING_NODES_LOGGED));
  });
});
