/**
 * Ledger amounts (cpu in millicores, everything else in whole units) onto the per-unit resource gauges
 * (observability/resource-gauges.ts): cpu in cores, byte-counted resources in bytes, the rest in units. Gauges are
 * floats; precision loss beyond 2^53 is fine for dashboards.
 */
import { CPU, isByteResource } from '../ledger/resource-amounts.js';
import type { ResourceGauges, ResourceUnit } from '../observability/resource-gauges.js';

export function gaugeUnitOf(resource: string): ResourceUnit {
  if (resource === CPU) return 'cores';
  return isByteResource(resource) ? 'bytes' : 'units';
}

/** Sets `resource` to `ledgerAmount` (in the ledger's integer unit) on the gauge of its unit. */
export function setResourceGauge(gauges: ResourceGauges, resource: string, ledgerAmount: number): void {
  const unit = gaugeUnitOf(resource);
  gauges.set(resource, unit, unit === 'cores' ? ledgerAmount / 1000 : ledgerAmount);
}
