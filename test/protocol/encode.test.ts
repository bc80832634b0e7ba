import assert from 'node:assert/strict';
import { decodeExtenderArgs } from '../../src/protocol/decode.js';
import { encodeFilterResult, encodeHostPriorityList, encodePreemptionResult } from '../../src/protocol/encode.js';
import { setNodeReason } from './failed-nodes.js';
import { GO_ARGS_NODES } from './fixtures.js';

describe('encodeFilterResult', () => {
  it('writes Go field names in declaration order, failed nodes in the order they were recorded', () => {
    const json = encodeFilterResult({
      Nodes: null,
      NodeNames: ['node-b'],
      FailedNodes: { 'node-z': 'cpu', 'node-a': 'memory' },
      FailedAndUnresolvableNodes: { 'node-c': 'selector' },
      Error: '',
    });
    assert.equal(
      json,
      '{"Nodes":null,"NodeNames":["node-b"],"FailedNodes":{"node-z":"cpu","node-a":"memory"},' +
        '"FailedAndUnresolvableNodes":{"node-c":"selector"},"Error":""}',
    );
  });

  it('writes null for unused fields; integer-like node names and a node named __proto__ survive as keys', () => {
    const json = encodeFilterResult({ Nodes: null, NodeNames: null, FailedNodes: { '9': 'a', '10': 'b' }, FailedAndUnresolvableNodes: null, Error: 'x' });
    assert.deepEqual(JSON.parse(json), { Nodes: null, NodeNames: null, FailedNodes: { '9': 'a', '10': 'b' }, FailedAndUnresolvableNodes: null, Error: 'x' });
    const failed: Record<string, string> = {};
    setNodeReason(failed, '__proto__', 'no such node');
    setNodeReason(failed, 'node-a', 'cpu');
    const text = encodeFilterResult({ Nodes: null, NodeNames: [], FailedNodes: failed, FailedAndUnresolvableNodes: {}, Error: '' });
    assert.equal(text, '{"Nodes":null,"NodeNames":[],"FailedNodes":{"__proto__":"no such node","node-a":"cpu"},"FailedAndUnresolvableNodes":{},"Error":""}');
    assert.equal(Object.getPrototypeOf(failed), Object.prototype);
  });

  it('echoes the request node objects in full-Nodes mode', () => {
    const args = decodeExtenderArgs(JSON.parse(GO_ARGS_NODES));
    const nodes = { ...args.Nodes!, items: args.Nodes!.items.slice(1) };
    const json = encodeFilterResult({ Nodes: nodes, NodeNames: null, FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' });
    const reparsed = JSON.parse(json);
    assert.deepEqual(Object.keys(reparsed), ['Nodes', 'NodeNames', 'FailedNodes', 'FailedAndUnresolvableNodes', 'Error']);
    assert.deepEqual(reparsed.Nodes.items, args.Nodes!.items.slice(1));
    assert.equal(reparsed.Nodes.kind, 'NodeList');
  });

  it('does not leak extra properties of the result object', () => {
    const result = { Nodes: null, NodeNames: [], FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '', debug: 'secret' };
    assert.ok(!encodeFilterResult(result).includes('secret'));
  });
});

describe('encodeHostPriorityList', () => {
  it('writes Host and Score in order', () => {
    assert.equal(
      encodeHostPriorityList([
        { Host: 'node-a', Score: 3 },
        { Host: 'node-b', Score: 10 },
      ]),
      '[{"Host":"node-a","Score":3},{"Host":"node-b","Score":10}]',
    );
    assert.equal(encodeHostPriorityList([]), '[]');
  });

  it('refuses a non-integer score Go could not decode into int64', () => {
    assert.throws(() => encodeHostPriorityList([{ Host: 'a', Score: 2.5 }]), /not an integer/);
    assert.throws(() => encodeHostPriorityList([{ Host: 'a', Score: Number.NaN }]), /not an integer/);
  });
});

describe('encodePreemptionResult', () => {
  it('writes meta victims only with UID', () => {
    const json = encodePreemptionResult({
      NodeNameToMetaVictims: { 'node-a': { Pods: [{ UID: 'u1', extra: 'no' } as { UID: string }], NumPDBViolations: 0 } },
    });
    assert.equal(json, '{"NodeNameToMetaVictims":{"node-a":{"Pods":[{"UID":"u1"}],"NumPDBViolations":0}}}');
    assert.equal(encodePreemptionResult({ NodeNameToMetaVictims: null }), '{"NodeNameToMetaVictims":null}');
  });
});
