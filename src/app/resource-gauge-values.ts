/**
 * Ledger amounts (cpu in millicores, everything else in whole units) onto the per-unit resource gauges
 * (observability/resource-gauges.ts), by the resource registry's unit: cpu in cores, byte-counted resources in bytes,
 * the rest in units. Gauges are floats; precision loss beyond 2^53 is fine for dashboards.
 */
import { gaugeValue, resourceUnit } from '../ledger/resources.js';
import type { ResourceGauges, ResourceUnit } from '../observability/resource-gauges.js';

const GAUGE_UNITS = { millicores: 'cores', bytes: 'bytes', count: 'units' } as const satisfies Record<string, ResourceUnit>;

export function gaugeUnitOf(resource: string): ResourceUnit {
  return GAUGE_UNITS[resourceUnit(resource)];
}

/** Sets `resource` to `ledgerAmount` (in the ledger's integer unit) on the gauge of its unit. */
export function setResourceGauge(gauges: ResourceGauges, resource: string, ledgerAmount: number): void {
  gauges.set(resource, gaugeUnitOf(resource), gaugeValue(resource, ledgerAmount));
}
