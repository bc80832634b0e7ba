/**
 * Selectors evaluated in the DRA CEL environment (k8s.io/dynamic-resource-allocation/cel: device.driver,
 * device.attributes[domain].name, device.capacity[domain].name as quantities, device.allowMultipleAllocations; the
 * quantity and semver libraries of k8s.io/apiserver/pkg/cel/library).
 */
import assert from 'node:assert/strict';
import { DeviceSelectors, type CelDeviceInput } from '../../../src/ledger/dra/device-cel.js';

const GPU: CelDeviceInput = {
  driver: 'gpu.example.com',
  attributes: {
    'gpu.example.com/model': { string: 'a100' },
    'gpu.example.com/cores': { int: 108 },
    'gpu.example.com/mig': { bool: true },
    'gpu.example.com/driverVersion': { version: '550.54.15' },
    'resource.kubernetes.io/pcieRoot': { string: 'pci0000:00' },
  },
  capacity: { 'gpu.example.com/memory': { value: '80Gi' } },
  allowMultipleAllocations: false,
};

describe('DRA selectors in CEL', () => {
  const selectors = new DeviceSelectors();
  const cases: Array<[string, boolean]> = [
    ['device.driver == "gpu.example.com"', true],
    ['device.driver == "other.example.com"', false],
    ['device.attributes["gpu.example.com"].model == "a100"', true],
    ['device.attributes["gpu.example.com"].cores >= 100', true],
    ['device.attributes["gpu.example.com"].mig', true],
    ['"model" in device.attributes["gpu.example.com"]', true],
    ['device.attributes["resource.kubernetes.io"].pcieRoot.startsWith("pci0000")', true],
    ['device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0', true],
    ['device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("100Gi"))', false],
    ['device.capacity["gpu.example.com"].memory.isLessThan(quantity("81Gi"))', true],
    ['quantity("1.5").isInteger()', false],
    ['quantity("2k").asInteger() == 2000', true],
    ['isQuantity("12Mi") && !isQuantity("twelve")', true],
    ['device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("550.0.0"))', true],
    ['device.attributes["gpu.example.com"].driverVersion.major() == 550', true],
    ['semver("1.2.3-rc.1").isLessThan(semver("1.2.3"))', true],
    ['!device.allowMultipleAllocations', true],
  ];
  for (const [expression, expected] of cases) {
    it(`${expression} → ${expected}`, () => {
      assert.deepEqual(selectors.evaluate([expression], GPU), { matches: expected });
    });
  }

  it('ANDs several selectors (a class\'s and a request\'s)', () => {
    assert.deepEqual(selectors.evaluate(['device.driver == "gpu.example.com"', 'device.attributes["gpu.example.com"].model == "h100"'], GPU), { matches: false });
  });

  it('reports what cannot be evaluated instead of guessing: a missing key, a syntax error, a non-bool, a cost over the limit', () => {
    const missing = selectors.evaluate(['device.attributes["gpu.example.com"].nvlink == true'], GPU);
    assert.match('error' in missing ? missing.error : '', /No such key: nvlink/);
    const syntax = selectors.evaluate(['device.driver == '], GPU);
    assert.ok('error' in syntax);
    const notBool = selectors.evaluate(['device.driver'], GPU);
    assert.match('error' in notBool ? notBool.error : '', /did not evaluate to a bool/);
    const huge = selectors.evaluate([Array.from({ length: 600 }, (_, i) => `device.attributes["gpu.example.com"].cores > ${i}`).join(' && ')], GPU);
    assert.ok('error' in huge, 'an expression beyond the AST limit is refused');
  });

  it('compiles each expression once (cached by text)', () => {
    const fresh = new DeviceSelectors();
    const first = fresh.compile('device.driver == "x"');
    assert.equal(fresh.compile('device.driver == "x"'), first);
  });
});
