import assert from 'node:assert/strict';
import { QuantityError } from '../../src/ledger/quantity.js';
import {
  addInto,
  amountsFromResourceList,
  formatAmount,
  maxInto,
  resourceAmount,
  type ResourceAmounts,
} from '../../src/ledger/resource-amounts.js';

const amounts = (entries: Record<string, bigint>): ResourceAmounts => new Map(Object.entries(entries));

describe('resource-amounts', () => {
  describe('resourceAmount', () => {
    it('converts cpu to millicores and everything else to whole units, rounding up', () => {
      assert.equal(resourceAmount('cpu', '1.5'), 1500n);
      assert.equal(resourceAmount('cpu', '0.1m'), 1n);
      assert.equal(resourceAmount('memory', '1Gi'), 1073741824n);
      assert.equal(resourceAmount('memory', '100m'), 1n);
      assert.equal(resourceAmount('pods', '110'), 110n);
      assert.equal(resourceAmount('example.com/gpu', '2'), 2n);
    });

    it('throws QuantityError for a malformed quantity', () => {
      assert.throws(() => resourceAmount('cpu', '1 core'), QuantityError);
    });
  });

  describe('addInto and maxInto', () => {
    it('adds per resource and subtracts with sign -1, keeping keys that reach zero', () => {
      const target = amounts({ cpu: 1000n, memory: 10n });
      addInto(target, amounts({ cpu: 500n, pods: 1n }));
      assert.deepEqual(target, amounts({ cpu: 1500n, memory: 10n, pods: 1n }));
      addInto(target, amounts({ cpu: 1500n, memory: 4n }), -1n);
      assert.deepEqual(target, amounts({ cpu: 0n, memory: 6n, pods: 1n }));
    });

    it('takes the larger value per resource and copies resources the target lacks', () => {
      const target = amounts({ cpu: 1000n, memory: 10n });
      maxInto(target, amounts({ cpu: 2000n, memory: 5n, 'example.com/gpu': 0n }));
      assert.deepEqual(target, amounts({ cpu: 2000n, memory: 10n, 'example.com/gpu': 0n }));
    });
  });

  describe('formatAmount', () => {
    const table: Array<[string, bigint, string]> = [
      ['cpu', 500n, '500m'],
      ['cpu', 4000n, '4'],
      ['cpu', 0n, '0'],
      ['cpu', 1500n, '1500m'],
      ['cpu', -250n, '-250m'],
      ['memory', 4n * 1024n ** 3n, '4Gi'],
      ['memory', 512n * 1024n ** 2n, '512Mi'],
      ['memory', 1536n * 1024n ** 2n, '1536Mi'],
      ['memory', 1000n, '1000'],
      ['memory', 0n, '0'],
      ['memory', -2048n, '-2Ki'],
      ['memory', 1n << 62n, '4Ei'],
      ['ephemeral-storage', 10n * 1024n ** 4n, '10Ti'],
      ['hugepages-2Mi', 2n * 1024n ** 2n, '2Mi'],
      ['pods', 110n, '110'],
      ['example.com/gpu', 1024n, '1024'],
    ];
    for (const [name, amount, text] of table) {
      it(`shows ${name} ${amount} as ${text}`, () => assert.equal(formatAmount(name, amount), text));
    }
  });

  describe('amountsFromResourceList', () => {
    it('parses every entry into ledger units', () => {
      const list = { cpu: '3800m', memory: '15Gi', pods: '110', 'hugepages-1Gi': '0' };
      assert.deepEqual(
        amountsFromResourceList(list, 'status.allocatable'),
        amounts({ cpu: 3800n, memory: 15n * 1024n ** 3n, pods: 110n, 'hugepages-1Gi': 0n }),
      );
    });

    it('returns an empty map for a missing list', () => {
      assert.deepEqual(amountsFromResourceList(undefined, 'status.allocatable'), new Map());
    });

    it('sets the error path to the list path plus the resource name', () => {
      assert.throws(
        () => amountsFromResourceList({ cpu: '4', memory: '16GB' }, 'status.allocatable'),
        (err: unknown) => err instanceof QuantityError && err.path === 'status.allocatable.memory' && /16GB/.test(err.message),
      );
    });
  });
});

describe('formatAmountNumber (the filter hot path)', () => {
  it('formats every safe integer exactly as formatAmount formats the same bigint (property)', async () => {
    const fc = (await import('fast-check')).default;
    const { formatAmount, formatAmountNumber } = await import('../../src/ledger/resource-amounts.js');
    const resources = fc.constantFrom('cpu', 'memory', 'ephemeral-storage', 'hugepages-2Mi', 'pods', 'example.com/gpu');
    const amounts = fc.oneof(
      fc.maxSafeInteger(),
      fc.integer({ min: 0, max: 64 }).chain((k) => fc.integer({ min: -1000, max: 1000 }).map((m) => m * 2 ** Math.min(k, 43))),
      fc.integer({ min: -5000, max: 5000 }).map((m) => m * 1000),
    );
    fc.assert(
      fc.property(resources, amounts, (resource, amount) => {
        if (!Number.isSafeInteger(amount)) return;
        assert.equal(formatAmountNumber(resource, amount), formatAmount(resource, BigInt(amount)));
      }),
      { numRuns: 3000 },
    );
  });
});
