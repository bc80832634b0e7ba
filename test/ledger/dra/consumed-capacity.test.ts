/**
 * Consumable capacity (KEP-5075) as the structured allocator applies it, table by table against
 * k8s.io/dynamic-resource-allocation/structured/internal/incubating/consumable_capacity.go:
 * `calculateConsumedCapacity`, `roundUpRange` (integer path: Quantity.Value()), `roundUpValidValues`,
 * `violatesPolicy` and `CmpRequestOverCapacity` (every capacity of the device is consumed: requested, else the policy
 * default, else all of it; the sum with what allocated and allocating claims consume must stay within the value).
 */
import assert from 'node:assert/strict';
import type { DeviceCapacityValue } from '../../../src/ledger/objects.js';
import {
  calculateConsumedCapacity,
  consumeCapacity,
  nanosOf,
  roundUpRange,
  roundUpValidValues,
  violatesPolicy,
} from '../../../src/ledger/dra/consumed-capacity.js';

const n = (text: string) => nanosOf(text);

describe('consumable capacity: roundUpRange (upstream roundUpRange)', () => {
  const cases: Array<{ request: string; range: { min?: string; step?: string }; want: string }> = [
    { request: '1', range: { min: '2' }, want: '2' },
    { request: '3', range: { min: '2' }, want: '3' },
    { request: '3', range: { min: '2', step: '4' }, want: '6' },
    { request: '6', range: { min: '2', step: '4' }, want: '6' },
    { request: '7', range: { min: '2', step: '4' }, want: '10' },
    { request: '1500m', range: { min: '1', step: '1' }, want: '2' },
    { request: '5Gi', range: { min: '1Gi', step: '4Gi' }, want: '5Gi' },
    { request: '6Gi', range: { min: '1Gi', step: '4Gi' }, want: '9Gi' },
  ];
  for (const c of cases) {
    it(`${c.request} in ${JSON.stringify(c.range)} consumes ${c.want}`, () => {
      assert.equal(roundUpRange(c.request, c.range), n(c.want));
    });
  }
});

describe('consumable capacity: roundUpValidValues and calculateConsumedCapacity (upstream)', () => {
  it('rounds up to the first valid value at least the request, else keeps the request', () => {
    assert.equal(roundUpValidValues('5', ['4', '8', '16']), n('8'));
    assert.equal(roundUpValidValues('4', ['4', '8', '16']), n('4'));
    assert.equal(roundUpValidValues('17', ['4', '8', '16']), n('17'));
  });

  const capacity = (requestPolicy?: DeviceCapacityValue['requestPolicy']): DeviceCapacityValue => ({ value: '32', ...(requestPolicy ? { requestPolicy } : {}) });
  const cases: Array<{ name: string; requested: string | undefined; cap: DeviceCapacityValue; want: string }> = [
    { name: 'unrequested without a policy: all of it', requested: undefined, cap: capacity(), want: '32' },
    { name: 'unrequested with a default: the default', requested: undefined, cap: capacity({ default: '4' }), want: '4' },
    { name: 'requested without a policy: the request', requested: '5', cap: capacity(), want: '5' },
    { name: 'requested with a range: rounded up', requested: '5', cap: capacity({ validRange: { min: '2', step: '2' } }), want: '6' },
    { name: 'requested with valid values: rounded up', requested: '5', cap: capacity({ validValues: ['8', '16'] }), want: '8' },
    { name: 'a policy with only a default leaves a request as it is', requested: '5', cap: capacity({ default: '4' }), want: '5' },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(calculateConsumedCapacity(c.requested, c.cap), n(c.want)));
  }
});

describe('consumable capacity: violatesPolicy and CmpRequestOverCapacity (upstream)', () => {
  it('refuses a consumption above the range maximum or outside the valid values; the default always passes', () => {
    const ranged: DeviceCapacityValue = { value: '64', requestPolicy: { default: '1', validRange: { min: '1', max: '8', step: '1' } } };
    assert.equal(violatesPolicy(n('9'), ranged, false), true);
    assert.equal(violatesPolicy(n('8'), ranged, false), false);
    assert.equal(violatesPolicy(n('1'), ranged, true), false);
    const listed: DeviceCapacityValue = { value: '64', requestPolicy: { validValues: ['4', '8'] } };
    assert.equal(violatesPolicy(n('17'), listed, false), true);
    assert.equal(violatesPolicy(n('8'), listed, false), false);
  });

  it('consumes every capacity of the device and refuses when any would exceed its value with what is in use', () => {
    const device: Record<string, DeviceCapacityValue> = {
      'x/cpu': { value: '32', requestPolicy: { default: '1', validRange: { min: '1', step: '2' } } },
      'x/mem': { value: '64Gi' },
    };
    assert.deepEqual(consumeCapacity(device, { 'x/cpu': '4' }, undefined), new Map([['x/cpu', n('5')], ['x/mem', n('64Gi')]]));
    assert.equal(consumeCapacity(device, { 'x/cpu': '4' }, new Map([['x/mem', n('1')]])), undefined, 'unrequested memory is all of it, and 1 byte is taken');
    assert.equal(consumeCapacity(device, { 'x/cpu': '30' }, new Map([['x/cpu', n('3')]])), undefined, '3 + 31 > 32');
    assert.equal(consumeCapacity(device, { 'x/gpu': '1' }, undefined), undefined, 'a capacity the device does not have');
    const policed: Record<string, DeviceCapacityValue> = { 'x/cpu': { value: '32', requestPolicy: { validRange: { min: '1', max: '8' } } } };
    assert.equal(consumeCapacity(policed, undefined, undefined), undefined, 'unrequested, no default: all 32, above the maximum 8');
  });
});
