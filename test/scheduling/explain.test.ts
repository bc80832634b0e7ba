import assert from 'node:assert/strict';
import { explainPod } from '../../src/scheduling/explain.js';
import { filter } from '../../src/scheduling/filter.js';
import { bareNode as node, ledgerOf, namesArgs, pod, podUid, schedulingOptions } from '../support/builders.js';

const OPTIONS = schedulingOptions();

/** fit: room; busy: 200m free; small: can never hold 500m; the pending pod is nominated to busy. */
const cluster = (nominated?: string) =>
  ledgerOf(
    [node('small', { cpu: '250m', pods: '10' }), node('fit', { cpu: '4', pods: '10' }), node('busy', { cpu: '4', pods: '10' })],
    [
      pod('ns', 'hog', { node: 'busy', cpu: '3800m' }),
      pod('ns', 'pending', { cpu: '500m', priority: 3, ...(nominated ? { nominated } : {}) }),
    ],
  );

describe('explain', () => {
  it('gives every known node, sorted by name, a verdict, the stable reason and code, the per-node detail and its free amounts', () => {
    const ledger = cluster();
    const explanation = explainPod(ledger, ledger.podByKey('ns/pending')!, OPTIONS);
    assert.deepEqual(explanation.nodes, [
      {
        node: 'busy',
        verdict: 'fails',
        reason: 'Insufficient cpu',
        code: 'insufficient_resource',
        detail: 'Insufficient cpu: requests 500m, free 200m of 4',
        free: { cpu: '200m', pods: '9' },
      },
      { node: 'fit', verdict: 'fits', reason: 'fits', code: 'fits', detail: 'fits', free: { cpu: '4', pods: '10' } },
      {
        node: 'small',
        verdict: 'unresolvable',
        reason: 'Insufficient cpu',
        code: 'insufficient_resource',
        detail: 'Insufficient cpu: requests 500m, node allocatable 250m',
        free: { cpu: '250m', pods: '10' },
      },
    ]);
    assert.deepEqual(explanation.summary, { fits: 1, fails: 1, unresolvable: 1, byReason: { 'Insufficient cpu': 2 } });
    assert.equal(explanation.nominatedNodeVerdict, undefined);
  });

  it('describes the pod itself: key, UID, phase, priority, placement and requests', () => {
    const ledger = cluster('busy');
    const explanation = explainPod(ledger, ledger.podByKey('ns/pending')!, OPTIONS);
    const { nodes: _nodes, summary: _summary, nominatedNodeVerdict: _verdict, ...pod } = explanation;
    assert.deepEqual(pod, {
      pod: 'ns/pending',
      uid: podUid('ns', 'pending'),
      phase: 'Pending',
      priority: 3,
      boundNode: null,
      nominatedNodeName: 'busy',
      requests: { cpu: '500m' },
      draEnabled: false,
    });
  });

  it('gives the same verdicts the filter gives', () => {
    const ledger = cluster();
    const explanation = explainPod(ledger, ledger.podByKey('ns/pending')!, OPTIONS);
    const { result } = filter(ledger, namesArgs(pod('ns', 'pending', { cpu: '500m', priority: 3 }), ['busy', 'fit', 'small']), OPTIONS);
    for (const n of explanation.nodes) {
      if (n.verdict === 'fits') assert.ok(result.NodeNames!.includes(n.node));
      else if (n.verdict === 'fails') assert.equal(result.FailedNodes![n.node], n.reason);
      else assert.equal(result.FailedAndUnresolvableNodes![n.node], n.reason);
    }
  });

  it('reports the nominated node verdict, not counting the pod own reservation against it', () => {
    const ledger = cluster('fit');
    const explanation = explainPod(ledger, ledger.podByKey('ns/pending')!, OPTIONS);
    assert.deepEqual(explanation.nominatedNodeVerdict, { node: 'fit', verdict: 'fits', reason: 'fits', code: 'fits', detail: 'fits', free: { cpu: '4', pods: '10' } });
  });

  it('reports a failing nominated node with its reason', () => {
    const ledger = cluster('busy');
    const explanation = explainPod(ledger, ledger.podByKey('ns/pending')!, OPTIONS);
    assert.equal(explanation.nominatedNodeVerdict?.verdict, 'fails');
    assert.equal(explanation.nominatedNodeVerdict?.reason, 'Insufficient cpu');
    assert.equal(explanation.nominatedNodeVerdict?.detail, 'Insufficient cpu: requests 500m, free 200m of 4');
  });

  it('reports a nominated node the ledger does not know as failing, with an empty free list', () => {
    const ledger = cluster('gone');
    const explanation = explainPod(ledger, ledger.podByKey('ns/pending')!, OPTIONS);
    assert.deepEqual(explanation.nominatedNodeVerdict, {
      node: 'gone',
      verdict: 'fails',
      reason: "node(s) not in kube-ledger's cache",
      code: 'node_unknown',
      detail: 'nominated node is not in the cache',
      free: {},
    });
    assert.equal(explanation.nodes.length, 3);
  });

  it('shows room held for a higher-priority nominated pod as used from a lower-priority pod point of view', () => {
    const ledger = ledgerOf(
      [node('n1', { cpu: '4', pods: '10' })],
      [pod('ns', 'vip', { cpu: '3', priority: 10, nominated: 'n1' }), pod('ns', 'low', { cpu: '2', priority: 1 })],
    );
    const low = explainPod(ledger, ledger.podByKey('ns/low')!, OPTIONS);
    assert.deepEqual(low.nodes[0]!.free, { cpu: '1', pods: '9' });
    assert.equal(low.nodes[0]!.verdict, 'fails');
    assert.equal(low.nodes[0]!.reason, 'Insufficient cpu');
    assert.equal(low.nodes[0]!.detail, 'Insufficient cpu: requests 2, free 1 of 4 (3 reserved for nominated pods of equal or higher priority)');
    const vip = explainPod(ledger, ledger.podByKey('ns/vip')!, OPTIONS);
    assert.deepEqual(vip.nodes[0]!.free, { cpu: '4', pods: '10' });
  });

  it('explains a bound pod without counting it against its own node', () => {
    const ledger = ledgerOf([node('n1', { cpu: '4', pods: '10' })], [pod('ns', 'running', { node: 'n1', cpu: '3' })]);
    const explanation = explainPod(ledger, ledger.podByKey('ns/running')!, OPTIONS);
    assert.equal(explanation.boundNode, 'n1');
    assert.deepEqual(explanation.nodes, [{ node: 'n1', verdict: 'fits', reason: 'fits', code: 'fits', detail: 'fits', free: { cpu: '4', pods: '10' } }]);
  });
});
