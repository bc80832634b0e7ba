/**
 * The decoding-cost estimate that guards the heap before JSON.parse (src/http/json-decode-cost.ts): dear shapes are
 * estimated dear, node lists a few times their size, punctuation inside strings is not structure, and the worst cost
 * per byte bounds every estimate.
 */
import assert from 'node:assert/strict';
import { jsonDecodeCost, worstDecodeCost } from '../../src/http/json-decode-cost.js';

const MiB = 1024 * 1024;
const body = (text: string) => Buffer.from(text);

describe('jsonDecodeCost', () => {
  it('estimates a MiB of empty objects at over 20 times its size, and a MiB of small node objects at about half that', () => {
    const objects = body(`[${'{},'.repeat(MiB / 3)}{}]`);
    assert.ok(jsonDecodeCost(objects) > 20 * objects.length, `${jsonDecodeCost(objects) / objects.length} per byte`);
    const node = JSON.stringify({ metadata: { name: 'node-1', labels: { zone: 'a' } }, status: { allocatable: { cpu: '16', memory: '64Gi', pods: '110' } } });
    const nodes = body(`{"items":[${Array(Math.ceil(MiB / node.length)).fill(node).join(',')}]}`);
    const perByte = jsonDecodeCost(nodes) / nodes.length;
    assert.ok(perByte > 5 && perByte < 12, `${perByte} per byte`);
  });

  it('prices properties of one huge object (a dictionary of distinct keys) above those of many small objects', () => {
    const keys = Array.from({ length: 60_000 }, (_, i) => `"k${i}":0`);
    const oneObject = body(`{${keys.join(',')}}`);
    const smallObjects = body(`[${keys.map((k) => `{${k}}`).join(',')}]`);
    const dictionary = jsonDecodeCost(oneObject) - 5 * oneObject.length;
    assert.ok(dictionary > 60_000 * 100, `${dictionary} for 60000 properties`);
    assert.ok(jsonDecodeCost(smallObjects) > 60_000 * (56 + 16), 'small objects still cost their objects');
  });

  it('does not count punctuation inside strings (escaped quotes included) as structure', () => {
    const text = body(`["${'{[,:\\"'.repeat(MiB / 7)}"]`);
    assert.ok(jsonDecodeCost(text) < 6 * text.length, `${jsonDecodeCost(text) / text.length} per byte`);
  });

  it('never estimates a body above the worst cost per byte, the dearest shape included', () => {
    const shapes = [`[${'{},'.repeat(10_000)}{}]`, `[${'[],'.repeat(10_000)}[]]`, `[${'1,'.repeat(10_000)}1]`, `["${'x'.repeat(30_000)}"]`,
      `{${Array.from({ length: 5000 }, (_, i) => `"k${i}":0`).join(',')}}`, '{}', '""'];
    for (const shape of shapes) {
      const text = body(shape);
      assert.ok(jsonDecodeCost(text) <= worstDecodeCost(text.length), `${shape.slice(0, 20)}…: ${jsonDecodeCost(text) / text.length} per byte`);
    }
  });
});
