/**
 * The explain table a person reads: one line per node, fits first then grouped by reason, the free amounts that decide,
 * the detail, a summary counting nodes by reason, and the pod's effective requests. Both report shapes are read: the
 * contract (short shared `reason`, numbers in `detail`, optional `code`) and today's numbered reasons.
 */
import assert from 'node:assert/strict';
import { readExplainedNode, renderExplainText, sortExplainedNodes, splitLegacyReason, summariseByReason } from '../../src/cli/explain-text.js';

const CONTRACT_REPORT = {
  pod: 'batch/low-fill',
  uid: 'u1',
  phase: 'Pending',
  priority: 0,
  boundNode: null,
  nominatedNodeName: 'worker-c',
  requests: { memory: '4Gi', cpu: '3' },
  draEnabled: false,
  nominatedNodeVerdict: { node: 'worker-c', verdict: 'fails', reason: 'Insufficient cpu', code: 'InsufficientResource', detail: 'requests 3, free 2 of 16', free: { cpu: '2' } },
  nodes: [
    { node: 'worker-d', verdict: 'fails', reason: 'Insufficient cpu', code: 'InsufficientResource', detail: 'requests 3, free 1 of 4', free: { cpu: '1', memory: '4Gi', pods: '110', 'ephemeral-storage': '100Gi' } },
    { node: 'worker-e', verdict: 'unresolvable', reason: 'Insufficient memory', code: 'InsufficientResource', detail: 'requests 4Gi, node allocatable 2Gi', free: { cpu: '8', memory: '1Gi', pods: '10' } },
    { node: 'worker-b', verdict: 'fits', reason: 'fits', free: { cpu: '3', memory: '12Gi', pods: '110' } },
    { node: 'worker-c', verdict: 'fails', reason: 'Insufficient cpu', code: 'InsufficientResource', detail: 'requests 3, free 2 of 16', free: { cpu: '2', memory: '12Gi', pods: '110' } },
    { node: 'worker-a', verdict: 'fits', reason: 'fits', free: { cpu: '5', memory: '18176Mi', pods: '110' }, notes: ['claim ml/x is not allocated yet: an estimate'] },
  ],
  summary: { fits: 2, fails: 2, unresolvable: 1 },
};

function tableLines(text: string): string[] {
  const lines = text.split('\n');
  const header = lines.findIndex((line) => line.startsWith('NODE '));
  const end = lines.indexOf('', header);
  return lines.slice(header, end);
}

describe('explain text renderer', () => {
  it('prints one line per node, fits first, then by reason, then by node name', () => {
    const rows = tableLines(renderExplainText(CONTRACT_REPORT)).slice(1).map((line) => line.split(/\s+/)[0]);
    assert.deepEqual(rows, ['worker-a', 'worker-b', 'worker-c', 'worker-d', 'worker-e']);
  });

  it('shows verdict, reason, free amounts and detail on each line, with the fit notes', () => {
    const lines = tableLines(renderExplainText(CONTRACT_REPORT));
    assert.match(lines[0]!, /^NODE\s+VERDICT\s+REASON\s+FREE CPU\s+FREE MEMORY\s+FREE PODS\s+DETAIL$/);
    assert.match(lines.find((l) => l.startsWith('worker-d'))!, /^worker-d\s+fails\s+Insufficient cpu\s+1\s+4Gi\s+110\s+requests 3, free 1 of 4$/);
    assert.match(lines.find((l) => l.startsWith('worker-e'))!, /^worker-e\s+unresolvable\s+Insufficient memory\s+8\s+1Gi\s+10\s+requests 4Gi, node allocatable 2Gi$/);
    assert.match(lines.find((l) => l.startsWith('worker-a'))!, /fits\s+fits\s+5\s+18176Mi\s+110\s+claim ml\/x is not allocated yet: an estimate$/);
  });

  it('leaves out free amounts nothing depends on (ephemeral-storage when not requested nor named)', () => {
    assert.doesNotMatch(renderExplainText(CONTRACT_REPORT), /EPHEMERAL/);
    const named = structuredClone(CONTRACT_REPORT);
    named.nodes[0]!.detail = 'ephemeral-storage: requests 1Gi, free 0';
    assert.match(renderExplainText(named), /FREE EPHEMERAL-STORAGE/);
  });

  it('summarises nodes by reason and prints the effective requests and the nominated node', () => {
    const text = renderExplainText(CONTRACT_REPORT);
    assert.match(text, /^pod batch\/low-fill \(Pending, priority 0\)$/m);
    assert.match(text, /^effective requests: cpu 3, memory 4Gi$/m);
    assert.match(text, /^nominated node: worker-c \(fails: requests 3, free 2 of 16\)$/m);
    assert.match(text, /^DRA node-allocatable accounting: off$/m);
    assert.equal(text.trimEnd().split('\n').at(-1), '5 nodes: 2 fits | 2 Insufficient cpu | 1 Insufficient memory');
  });

  it('counts zero fitting nodes explicitly, most common cause first', () => {
    const nodes = ['a', 'b', 'c'].map((node, i) => readExplainedNode({ node, verdict: 'fails', reason: i === 0 ? 'NUMA alignment' : 'Insufficient cpu', free: {} }));
    assert.equal(summariseByReason(nodes), '3 nodes: 0 fits | 2 Insufficient cpu | 1 NUMA alignment');
  });

  it('splits a numbered reason of today\'s servers into a shared cause and its detail', () => {
    assert.deepEqual(splitLegacyReason('Insufficient cpu: requests 3, free 2 of 8'), { reason: 'Insufficient cpu', detail: 'requests 3, free 2 of 8' });
    const two = 'Insufficient cpu: requests 3, node allocatable 2; Insufficient memory: requests 4Gi, free 3Gi of 4Gi';
    assert.deepEqual(splitLegacyReason(two), { reason: 'Insufficient cpu; Insufficient memory', detail: two });
    // A DRA message lists claims after "; " in lower case: still one cause.
    const dra = 'DRA claims cannot be served here: claim ml/a request cpus: 0 device(s); claim ml/a request gpu: 0 device(s)';
    assert.equal(splitLegacyReason(dra).reason, 'DRA claims cannot be served here');
    assert.deepEqual(splitLegacyReason('node is not in the cache'), { reason: 'node is not in the cache' });
  });

  it('groups today\'s numbered reasons the same way as the contract\'s short ones', () => {
    const legacy = ['8', '4'].map((total, i) => readExplainedNode({ node: `n${i}`, verdict: 'fails', reason: `Insufficient cpu: requests 3, free 2 of ${total}`, free: { cpu: '2' } }));
    assert.equal(summariseByReason(legacy), '2 nodes: 0 fits | 2 Insufficient cpu');
    assert.equal(legacy[1]!.detail, 'requests 3, free 2 of 4');
  });

  it('keeps a contract reason and detail as sent, and the code', () => {
    const node = readExplainedNode({ node: 'n', verdict: 'fails', reason: 'Insufficient cpu', code: 'InsufficientResource', detail: 'requests 3: free 1', free: {} });
    assert.deepEqual(node, { node: 'n', verdict: 'fails', reason: 'Insufficient cpu', code: 'InsufficientResource', detail: 'requests 3: free 1', free: {}, notes: [] });
  });

  it('drops a detail that repeats the reason, and the reason\'s own prefix from a detail', () => {
    const fits = readExplainedNode({ node: 'a', verdict: 'fits', reason: 'fits', code: 'fits', detail: 'fits', free: {} });
    assert.equal(fits.detail, undefined);
    const fails = readExplainedNode({ node: 'b', verdict: 'fails', reason: 'Insufficient cpu', code: 'insufficient_resource', detail: 'Insufficient cpu: requests 3, free 2 of 16', free: {} });
    assert.deepEqual([fails.reason, fails.detail], ['Insufficient cpu', 'requests 3, free 2 of 16']);
    const two = readExplainedNode({ node: 'c', verdict: 'unresolvable', reason: 'Insufficient cpu', detail: 'Insufficient cpu: requests 3, node allocatable 2; Insufficient memory: requests 4Gi', free: {} });
    assert.equal(two.detail, 'requests 3, node allocatable 2; Insufficient memory: requests 4Gi');
    // A short reason with an empty detail is not split as if it were today's numbered reason.
    assert.deepEqual(readExplainedNode({ node: 'd', verdict: 'fails', reason: 'NUMA alignment: x', detail: '', free: {} }).reason, 'NUMA alignment: x');
  });

  it('renders a report with missing or odd fields without throwing', () => {
    const text = renderExplainText({ nodes: [{ node: 'x', verdict: 'fails' }, 'junk', null] });
    assert.match(text, /^pod -$/m);
    assert.match(text, /^effective requests: none$/m);
    assert.match(text, /^x\s+fails\s+-/m);
    assert.match(renderExplainText(null), /0 nodes: 0 fits/);
  });

  it('sorts without regard to input order', () => {
    const nodes = CONTRACT_REPORT.nodes.map(readExplainedNode);
    assert.deepEqual(sortExplainedNodes(nodes).map((n) => n.node), sortExplainedNodes([...nodes].reverse()).map((n) => n.node));
  });
});
