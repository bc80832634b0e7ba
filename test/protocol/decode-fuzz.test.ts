import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeExtenderArgs, decodePreemptionArgs } from '../../src/protocol/decode.js';
import { InputError } from '../../src/protocol/errors.js';

const DECODERS = { decodeExtenderArgs, decodePreemptionArgs };

/** Keys that fold onto real fields, so random values land in the decoders' interesting branches. */
const FIELD_KEYS = [
  'Pod', 'pod', 'Nodes', 'nodes', 'NodeNames', 'NODENAMES', 'items', 'Items', 'kind', 'metadata', 'NodeNameToVictims',
  'NodeNameToMetaVictims', 'nodenametometavictims', 'Pods', 'pods', 'UID', 'uid', 'NumPDBViolations', 'Host', 'Score',
  'FailedNodes', 'FailedAndUnresolvableNodes', 'Error', '__proto__', 'constructor', 'node-a',
];

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.string(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...FIELD_KEYS), fc.string()), tie('value'), { maxKeys: 5 }),
  ),
})).value;

function throwsOnlyInputError(decode: (body: unknown) => unknown, body: unknown): void {
  try {
    decode(body);
  } catch (err) {
    assert.ok(err instanceof InputError, `threw ${String(err)}`);
  }
}

describe('decoder fuzzing', () => {
  for (const [name, decode] of Object.entries(DECODERS)) {
    it(`${name} throws nothing but InputError on random JSON`, () => {
      fc.assert(
        fc.property(jsonValue, (body) => {
          // Round-trip through JSON so values are exactly what JSON.parse can produce (e.g. own __proto__ keys).
          const text = JSON.stringify(body);
          throwsOnlyInputError(decode, text === undefined ? null : JSON.parse(text));
        }),
        { numRuns: 1500 },
      );
    });
  }

  it('never pollutes Object.prototype', () => {
    fc.assert(
      fc.property(jsonValue, (body) => {
        const inner = JSON.stringify(body);
        // Built as text: an object literal's __proto__ would set the prototype instead of an own key.
        const parsed = JSON.parse(`{"__proto__":${inner},"NodeNameToMetaVictims":{"__proto__":${inner}},"Nodes":{"__proto__":${inner}}}`);
        for (const decode of Object.values(DECODERS)) throwsOnlyInputError(decode, parsed);
        assert.equal(Object.keys(Object.prototype).length, 0);
      }),
      { numRuns: 300 },
    );
  });
});
