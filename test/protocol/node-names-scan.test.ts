/**
 * The NodeNames scanner (protocol/node-names-scan.ts) may only ever take a body JSON.parse takes, and read it the
 * same way: same keys, same order, same Pod, same names. Anything else must be left to JSON.parse (undefined), whose
 * errors the route reports. Checked on generated bodies, on random corruptions of them, and on the cases that must
 * fall back (Go's case-insensitive keys, duplicates, escapes, non-ASCII, Nodes not null).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { scanNodeNamesBody, scannedArgsValue } from '../../src/protocol/node-names-scan.js';

const decoder = new TextDecoder();
const bytesOf = (text: string) => new TextEncoder().encode(text);

/** What the route does with an accepted body: names decoded from their ranges (the ledger resolves them alike). */
function scannedValue(body: Uint8Array): Record<string, unknown> | undefined {
  const scanned = scanNodeNamesBody(body);
  if (!scanned) return undefined;
  const names: string[] = [];
  for (let i = 0; i < scanned.ranges.length; i += 2) names.push(decoder.decode(body.subarray(scanned.ranges[i]!, scanned.ranges[i + 1]!)));
  return scannedArgsValue(scanned, names);
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const nameArb = fc.oneof(
  { weight: 12, arbitrary: fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('é', 'a"b', 'a\\b', '\u0001', '__proto__') },
);
const podArb = fc.oneof(
  fc.constant(null),
  fc.record({ metadata: fc.record({ name: fc.string({ maxLength: 8 }), namespace: fc.constantFrom('ns', 'a"}]b', '{[') }), spec: fc.jsonValue({ maxDepth: 3 }) }),
);
const spaceArb = fc.constantFrom('', ' ', '\n', '\t ', '\r\n');
const bodyArb = fc
  .record({
    pod: podArb,
    names: fc.array(nameArb, { maxLength: 8 }),
    order: fc.shuffledSubarray(['Pod', 'Nodes', 'NodeNames'] as const, { minLength: 1 }),
    spaces: fc.array(spaceArb, { minLength: 16, maxLength: 16 }),
  })
  .map(({ pod, names, order, spaces }) => {
    const value: Record<string, unknown> = { Pod: pod, Nodes: null, NodeNames: names };
    let s = 0;
    const sp = () => spaces[s++ % spaces.length]!;
    const fields = order.map((key) => `${sp()}${JSON.stringify(key)}${sp()}:${sp()}${key === 'NodeNames' ? `[${names.map((n) => sp() + JSON.stringify(n)).join(`${sp()},`)}${sp()}]` : JSON.stringify(value[key])}${sp()}`);
    return `${sp()}{${fields.join(',')}}${sp()}`;
  });

describe('NodeNames body scanner', () => {
  it('reads every body it accepts exactly as JSON.parse does, keys in the same order (property)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(bodyArb, (text) => {
        const value = scannedValue(bytesOf(text));
        if (value === undefined) return;
        accepted++;
        const parsed = JSON.parse(text) as Record<string, unknown>;
        assert.deepEqual(value, parsed);
        assert.deepEqual(Object.keys(value), Object.keys(parsed));
      }),
      { numRuns: 1000 },
    );
    assert.ok(accepted > 300, `the plain shape is taken (${accepted} of 1000)`);
  });

  it('never takes a corrupted body JSON.parse refuses, nor reads one differently (property)', () => {
    const significant = ['{', '}', '[', ']', ',', ':', '"', '\\', ' ', 'n', '0', '\u00e9', 'null'];
    fc.assert(
      fc.property(bodyArb, fc.array(fc.record({ at: fc.nat(), cut: fc.nat(2), put: fc.constantFrom(...significant, '') }), { minLength: 1, maxLength: 3 }), (text, edits) => {
        let corrupted = text;
        for (const { at, cut, put } of edits) {
          const i = at % (corrupted.length + 1);
          corrupted = corrupted.slice(0, i) + put + corrupted.slice(i + cut);
        }
        const value = scannedValue(bytesOf(corrupted));
        if (value === undefined) return;
        const parsed = parsedOrUndefined(corrupted);
        assert.notEqual(parsed, undefined, `accepted what JSON.parse refuses: ${corrupted}`);
        assert.deepEqual(value, parsed, corrupted);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the plain shape kube-scheduler sends, with the names as byte ranges', () => {
    const body = bytesOf('{"Pod":{"metadata":{"name":"p"}},"Nodes":null,"NodeNames":["node-1","node-2"]}');
    const scanned = scanNodeNamesBody(body)!;
    assert.deepEqual(scanned.keys, ['Pod', 'Nodes', 'NodeNames']);
    assert.deepEqual(scanned.pod, { metadata: { name: 'p' } });
    assert.deepEqual([...scanned.ranges].map((n, i, all) => (i % 2 === 0 ? decoder.decode(body.subarray(n, all[i + 1])) : undefined)).filter(Boolean), ['node-1', 'node-2']);
    assert.deepEqual(scannedValue(bytesOf('{"Pod":null,"NodeNames":[]}')), { Pod: null, NodeNames: [] });
  });

  it('leaves to JSON.parse and the decoder whatever is not the plain shape', () => {
    const fallBack = [
      '{"pod":{},"Nodes":null,"NodeNames":["a"]}', // Go matches keys case-insensitively: the decoder's business
      '{"Pod":{},"Pod":{},"NodeNames":["a"]}', // a key twice: JSON.parse keeps the last
      '{"Pod":{},"NodeNames":["a"],"NodeNames":["b"]}',
      '{"Pod":{},"Nodes":{"items":[]},"NodeNames":null}', // Nodes mode
      '{"Pod":{},"Nodes":null}', // no NodeNames
      '{"Pod":{},"NodeNames":["n\\u0031"]}', // an escape in a name
      '{"Pod":{},"NodeNames":["é"]}', // beyond ASCII
      '{"Pod":{},"NodeNames":["a"],"Extra":1}', // another key
      '{"P\\u006fd":{},"NodeNames":["a"]}',
      '\ufeff{"Pod":{},"NodeNames":["a"]}', // a BOM: JSON.parse refuses it, as Go's decoder does
      '{"Pod":{"a":1,},"NodeNames":["a"]}', // malformed Pod: JSON.parse says where
      '{"Pod":{},"NodeNames":["a",]}',
      '{"Pod":{},"NodeNames":["a"]}x',
      '{"Pod":{},"NodeNames":[1]}',
      '{}',
      '[]',
      '',
    ];
    for (const text of fallBack) assert.equal(scanNodeNamesBody(bytesOf(text)), undefined, text);
    // Invalid UTF-8 inside the Pod: refused by the strict decoder, so the route's parser reports it.
    const invalid = new Uint8Array([...bytesOf('{"Pod":{"a":"'), 0xff, ...bytesOf('"},"NodeNames":["a"]}')]);
    assert.equal(scanNodeNamesBody(invalid), undefined);
  });
});
