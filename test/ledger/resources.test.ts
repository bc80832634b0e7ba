/**
 * The resource registry (ledger/resources.ts) is the one place a compute resource's facts live: the fit rule's reason
 * order, the scoring kernel's scalar rule, the scoring defaults, the units people read (explain, the ledger export)
 * and the gauges all read it. Each reader is checked for the named resources, and an entry added to the registry
 * changes what every reader does, with no other edit.
 */
import assert from 'node:assert/strict';
import { nonZeroOf, podEntryFromObject } from '../../src/ledger/pod-entry.js';
import { formatAmount, resourceAmount } from '../../src/ledger/resource-amounts.js';
import { compareResources, gaugeValue, NAMED_RESOURCES, resourceFacts, type ResourceFacts } from '../../src/ledger/resources.js';
import { isNodeAllocatableResource } from '../../src/ledger/dra/mapped-quantity.js';
import { ResourceIds } from '../../src/ledger/numeric-amounts.js';
import { assessFit, fitContext } from '../../src/scheduling/fit.js';
import { compileWeights } from '../../src/scheduling/score-kernel.js';
import { ledgerOf, node, pod, schedulingOptions } from '../support/builders.js';
import { gaugeUnitOf } from '../../src/app/resource-gauge-values.js';
import { metricValue } from '../support/metric-value.js';
import { serveSnapshot } from '../support/snapshot-server.js';

/** Every reason the fit rule gives for a pod that lacks everything, in the order it gives them. */
function reasonsFor(requests: Record<string, string>): string {
  const ledger = ledgerOf([node('n', { cpu: '1', memory: '1Gi', 'ephemeral-storage': '1Gi', 'example.com/widget': '1', 'hugepages-2Mi': '2Mi', pods: '0' })]);
  const incoming = podEntryFromObject(pod('ns', 'p', { requests }));
  const verdict = assessFit(fitContext(ledger, incoming, schedulingOptions()), ledger.node('n'));
  assert.ok(!verdict.fits);
  return verdict.reason;
}

const EVERYTHING = { 'example.com/widget': '2', 'hugepages-2Mi': '4Mi', 'ephemeral-storage': '2Gi', memory: '2Gi', cpu: '2' };

describe('resource registry', () => {
  it('the fit rule reports in the registry\'s order: pods, cpu, memory, ephemeral-storage, then by name (upstream fitsRequest)', () => {
    assert.equal(reasonsFor(EVERYTHING), 'Too many pods, Insufficient cpu, Insufficient memory, Insufficient ephemeral-storage, Insufficient example.com/widget, Insufficient hugepages-2Mi');
    assert.deepEqual(['example.com/widget', 'memory', 'pods', 'cpu'].sort(compareResources), ['pods', 'cpu', 'memory', 'example.com/widget']);
  });

  it('units: cpu in millicores, memory-like resources in bytes, anything else counted, for parsing and for people', () => {
    assert.equal(resourceAmount('cpu', '1.5'), 1500n);
    assert.equal(resourceAmount('memory', '1Ki'), 1024n);
    assert.equal(formatAmount('cpu', 1500n), '1500m');
    assert.equal(formatAmount('hugepages-2Mi', 4n * 1024n * 1024n), '4Mi');
    assert.equal(formatAmount('example.com/widget', 2048n), '2048');
    assert.deepEqual(['cpu', 'memory', 'storage', 'hugepages-1Gi', 'pods', 'example.com/gpu'].map((r) => resourceFacts(r).unit), ['millicores', 'bytes', 'bytes', 'bytes', 'count', 'count']);
  });

  it('scalar resources (upstream IsScalarResourceName) are left out of a score the pod does not request them in', () => {
    const weights = compileWeights(new Map([['cpu', 1n], ['example.com/gpu', 1n], ['hugepages-2Mi', 1n], ['attachable-volumes-csi', 1n], ['kubernetes.io/batteries', 1n]]), new ResourceIds());
    assert.deepEqual(weights.map((w) => w.scalar), [false, true, true, true, true]);
  });

  it('the non-zero scoring defaults are the registry\'s (upstream DefaultMilliCPURequest 100m, DefaultMemoryRequest 200Mi)', () => {
    assert.equal(NAMED_RESOURCES['cpu']?.nonZeroDefault, 100n);
    assert.equal(NAMED_RESOURCES['memory']?.nonZeroDefault, 200n * 1024n * 1024n);
    const bare = podEntryFromObject(pod('ns', 'bare', { containers: [{ name: 'a' }, { name: 'b' }] }));
    assert.deepEqual({ ...nonZeroOf(bare) }, { cpu: 200, memory: 2 * 200 * 1024 * 1024 });
  });

  it('extended resources (upstream IsExtendedResourceName) and DRA\'s implicit class names', () => {
    const extended = ['example.com/gpu', 'deviceclass.resource.kubernetes.io/gpu', 'kubernetes.io/batteries', 'requests.example.com/x', 'cpu', 'hugepages-2Mi'].map((r) => resourceFacts(r).extended);
    assert.deepEqual(extended, [true, true, false, false, false, false]);
  });

  it('DRA mapping targets (KEP-5517: node-allocatable resources, never extended ones) agree with the DRA ledger\'s rule', () => {
    const names = ['cpu', 'memory', 'ephemeral-storage', 'hugepages-2Mi', 'hugepages-1Gi', 'pods', 'storage', 'example.com/gpu', 'nvidia.com/gpu'];
    assert.deepEqual(names.map((r) => resourceFacts(r).draTarget), names.map(isNodeAllocatableResource));
    assert.deepEqual(names.filter((r) => resourceFacts(r).draTarget), ['cpu', 'memory', 'ephemeral-storage', 'hugepages-2Mi', 'hugepages-1Gi']);
  });

  it('the gauges take the registry\'s unit: cpu in cores, bytes in bytes, the rest in units', async () => {
    assert.equal(gaugeValue('cpu', 1500), 1.5);
    assert.equal(gaugeValue('memory', 1024), 1024);
    assert.deepEqual(['cpu', 'memory', 'hugepages-2Mi', 'pods', 'example.com/widget'].map(gaugeUnitOf), ['cores', 'bytes', 'bytes', 'units', 'units']);
    const served = await serveSnapshot([node('n', { cpu: '3500m', memory: '2Gi', 'example.com/widget': '4' })]);
    try {
      const metrics = served.running.metrics;
      assert.equal(await metricValue(metrics, 'kube_ledger_ledger_allocatable_cpu_cores'), 3.5);
      assert.equal(await metricValue(metrics, 'kube_ledger_ledger_allocatable_bytes', { resource: 'memory' }), 2 * 1024 ** 3);
      assert.equal(await metricValue(metrics, 'kube_ledger_ledger_allocatable_units', { resource: 'example.com/widget' }), 4);
    } finally {
      await served.close();
    }
  });

  it('an entry added to the registry changes the fit rule\'s order, the units and the gauge, with no other edit', async () => {
    const named = NAMED_RESOURCES as Record<string, ResourceFacts>;
    named['example.com/widget'] = { unit: 'bytes', scalar: false, extended: true, draTarget: false, reportOrder: 0, nonZeroDefault: undefined };
    try {
      assert.equal(reasonsFor(EVERYTHING), 'Too many pods, Insufficient example.com/widget, Insufficient cpu, Insufficient memory, Insufficient ephemeral-storage, Insufficient hugepages-2Mi');
      assert.equal(formatAmount('example.com/widget', 2048n), '2Ki');
      assert.equal(compileWeights(new Map([['example.com/widget', 1n]]), new ResourceIds())[0]?.scalar, false);
      const served = await serveSnapshot([node('n', { cpu: '1', 'example.com/widget': '2Ki' })]);
      try {
        const metrics = served.running.metrics;
        assert.equal(await metricValue(metrics, 'kube_ledger_ledger_allocatable_bytes', { resource: 'example.com/widget' }), 2048);
        assert.equal(await metricValue(metrics, 'kube_ledger_ledger_allocatable_units', { resource: 'example.com/widget' }), 0);
      } finally {
        await served.close();
      }
    } finally {
      delete named['example.com/widget'];
    }
    assert.equal(resourceFacts('example.com/widget').unit, 'count');
  });
});
