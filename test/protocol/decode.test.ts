import assert from 'node:assert/strict';
import {
  decodeExtenderArgs,
  decodePreemptionArgs,
} from '../../src/protocol/decode.js';
import { InputError } from '../../src/protocol/errors.js';
import * as fx from './fixtures.js';

function assertInputError(fn: () => unknown, path: string, problem?: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof InputError, `expected InputError, got ${String(err)}`);
    assert.equal(err.path, path);
    if (problem) assert.match(err.problem, problem);
    return true;
  });
}

describe('decodeExtenderArgs', () => {
  for (const [name, body] of [
    ['Go shape', fx.GO_ARGS_NAMES],
    ['legacy lowercase shape', fx.LEGACY_ARGS_NAMES],
  ] as const) {
    it(`reads NodeNames mode from the ${name}`, () => {
      const args = decodeExtenderArgs(JSON.parse(body));
      assert.deepEqual(args.NodeNames, fx.NAMES);
      assert.equal(args.Nodes, null);
      assert.deepEqual(args.Pod, fx.POD);
    });
  }

  for (const [name, body] of [
    ['Go shape', fx.GO_ARGS_NODES],
    ['legacy lowercase shape', fx.LEGACY_ARGS_NODES],
  ] as const) {
    it(`reads full Nodes mode from the ${name}, passing node objects by reference`, () => {
      const parsed = JSON.parse(body);
      const args = decodeExtenderArgs(parsed);
      assert.equal(args.NodeNames, null);
      const rawItems = (parsed.Nodes ?? parsed.nodes).items;
      assert.equal(args.Nodes?.items, rawItems, 'items array must not be copied');
      assert.equal(args.Nodes?.kind, 'NodeList');
      assert.deepEqual(args.Nodes?.metadata, { resourceVersion: '77' });
    });
  }

  it('matches keys case-insensitively, including all-caps and Go fold runes', () => {
    assert.deepEqual(decodeExtenderArgs({ NODENAMES: ['x'] }).NodeNames, ['x']);
    assert.deepEqual(decodeExtenderArgs({ NodeName\u017f: ['y'] }).NodeNames, ['y'], 'long s folds to S as in Go');
    assert.deepEqual(decodeExtenderArgs({ nodes: { ITEMS: [{}] } }).Nodes?.items, [{}]);
  });

  it('lets the last key folding to a field win, including a later null', () => {
    assert.deepEqual(decodeExtenderArgs(JSON.parse('{"NodeNames":["a"],"nodenames":["b"]}')).NodeNames, ['b']);
    assert.equal(decodeExtenderArgs(JSON.parse('{"NodeNames":["a"],"nodenames":null}')).NodeNames, null);
  });

  it('ignores unknown keys and treats null and missing as absent', () => {
    const args = decodeExtenderArgs({ Pod: null, Extra: 1, NodeNames: null });
    assert.deepEqual(args, { Pod: null, Nodes: null, NodeNames: null });
    assert.deepEqual(decodeExtenderArgs({}), { Pod: null, Nodes: null, NodeNames: null });
  });

  it('decodes a null name as "" like Go', () => {
    assert.deepEqual(decodeExtenderArgs({ NodeNames: ['a', null] }).NodeNames, ['a', '']);
  });

  it('does not let a __proto__ key touch any prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"NodeNames":["a"]}');
    const args = decodeExtenderArgs(parsed);
    assert.deepEqual(args.NodeNames, ['a']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  const badShapes: Array<[string, unknown, string, RegExp]> = [
    ['a non-object body', [], '$', /expected object, got array/],
    ['a null body', null, '$', /expected object, got null/],
    ['a string name', { NodeNames: ['a', 'b', 'c', 4] }, '$.NodeNames[3]', /expected string, got number/],
    ['a NodeNames object', { NodeNames: { a: 1 } }, '$.NodeNames', /expected array, got object/],
    ['a Pod array', { Pod: [] }, '$.Pod', /expected object, got array/],
    ['a Pod string', { pod: 'x' }, '$.pod', /expected object, got string/],
    ['Nodes.items not an array', { Nodes: { items: {} } }, '$.Nodes.items', /expected array/],
    ['a node that is a string', { Nodes: { items: [{}, 'n'] } }, '$.Nodes.items[1]', /expected object, got string/],
    ['a null node', { Nodes: { items: [null] } }, '$.Nodes.items[0]', /expected object, got null/],
    ['a Nodes array', { Nodes: [] }, '$.Nodes', /expected object, got array/],
    ['a numeric kind', { Nodes: { kind: 3, items: [] } }, '$.Nodes.kind', /expected string/],
  ];
  for (const [name, body, path, problem] of badShapes) {
    it(`refuses ${name} with the JSON path ${path}`, () => assertInputError(() => decodeExtenderArgs(body), path, problem));
  }
});

describe('decodePreemptionArgs', () => {
  for (const [name, body] of [
    ['Go shape', fx.GO_PREEMPT_META],
    ['legacy lowercase shape', fx.LEGACY_PREEMPT_META],
  ] as const) {
    it(`reads meta victims from the ${name}`, () => {
      const args = decodePreemptionArgs(JSON.parse(body));
      assert.equal(args.NodeNameToVictims, null);
      assert.deepEqual({ ...args.NodeNameToMetaVictims }, {
        'node-a': { Pods: [{ UID: 'victim-1' }, { UID: 'victim-2' }], NumPDBViolations: 1 },
      });
    });
  }

  for (const [name, body] of [
    ['Go shape', fx.GO_PREEMPT_FULL],
    ['legacy lowercase shape', fx.LEGACY_PREEMPT_FULL],
  ] as const) {
    it(`reads full victims from the ${name}`, () => {
      const args = decodePreemptionArgs(JSON.parse(body));
      assert.equal(args.NodeNameToMetaVictims, null);
      const victims = args.NodeNameToVictims?.['node-a'];
      assert.equal(victims?.Pods.length, 1);
      assert.equal(victims?.NumPDBViolations, 0);
    });
  }

  it('keeps a node literally named __proto__ as an own key of a prototype-free map', () => {
    const args = decodePreemptionArgs(JSON.parse('{"NodeNameToMetaVictims":{"__proto__":{"Pods":[{"UID":"u"}]}}}'));
    const map = args.NodeNameToMetaVictims!;
    assert.equal(Object.getPrototypeOf(map), null);
    assert.deepEqual(Object.keys(map), ['__proto__']);
    assert.deepEqual(map['__proto__']?.Pods, [{ UID: 'u' }]);
  });

  it('treats null Pods and NumPDBViolations as empty/zero', () => {
    const args = decodePreemptionArgs({ NodeNameToMetaVictims: { n: { Pods: null, NumPDBViolations: null } } });
    assert.deepEqual({ ...args.NodeNameToMetaVictims }, { n: { Pods: [], NumPDBViolations: 0 } });
  });

  const badShapes: Array<[string, unknown, string, RegExp]> = [
    ['a numeric UID', { NodeNameToMetaVictims: { 'node-a': { Pods: [{ UID: 7 }] } } }, '$.NodeNameToMetaVictims.node-a.Pods[0].UID', /expected string, got number/],
    ['a dotted node name path', { NodeNameToMetaVictims: { 'n.example': { Pods: 'x' } } }, '$.NodeNameToMetaVictims["n.example"].Pods', /expected array/],
    ['a fractional NumPDBViolations', { NodeNameToMetaVictims: { n: { NumPDBViolations: 1.5 } } }, '$.NodeNameToMetaVictims.n.NumPDBViolations', /integer within int64/],
    ['an out-of-range NumPDBViolations', { NodeNameToMetaVictims: { n: { NumPDBViolations: 1e20 } } }, '$.NodeNameToMetaVictims.n.NumPDBViolations', /int64/],
    ['a string NumPDBViolations', { NodeNameToVictims: { n: { NumPDBViolations: '1' } } }, '$.NodeNameToVictims.n.NumPDBViolations', /expected integer, got string/],
    ['a null victims entry', { NodeNameToMetaVictims: { n: null } }, '$.NodeNameToMetaVictims.n', /expected object, got null/],
    ['a victim pod that is not an object', { NodeNameToVictims: { n: { Pods: [[]] } } }, '$.NodeNameToVictims.n.Pods[0]', /expected object, got array/],
  ];
  for (const [name, body, path, problem] of badShapes) {
    it(`refuses ${name} with the JSON path ${path}`, () => assertInputError(() => decodePreemptionArgs(body), path, problem));
  }
});
