/**
 * Per-resource amounts as gauges, one metric name per unit: cpu in `..._cpu_cores`, byte-counted resources (memory,
 * ephemeral-storage, hugepages-*) in `..._bytes{resource}`, counted ones (pods, extended resources such as
 * nvidia.com/gpu) in `..._units{resource}`. A single gauge with a `resource` label would put cores and bytes under one
 * name, and a sum or ratio across its series would add them up.
 */
import { Gauge, type Registry } from 'prom-client';

export type ResourceUnit = 'cores' | 'bytes' | 'units';

export class ResourceGauges {
  readonly cpuCores: Gauge;
  readonly bytes: Gauge<'resource'>;
  readonly units: Gauge<'resource'>;

  /** `name` is the family's stem (`kube_ledger_ledger_allocatable`); `what` completes each help text. */
  constructor(name: string, what: string, registers: Registry[]) {
    this.cpuCores = new Gauge({ name: `${name}_cpu_cores`, help: `${what}: cpu, in cores.`, registers });
    this.bytes = new Gauge({
      name: `${name}_bytes`,
      help: `${what}: resources counted in bytes (memory, ephemeral-storage, hugepages-*), by resource.`,
      labelNames: ['resource'] as const,
      registers,
    });
    this.units = new Gauge({
      name: `${name}_units`,
      help: `${what}: resources counted in whole units (pods, extended resources), by resource.`,
      labelNames: ['resource'] as const,
      registers,
    });
  }

  /** `value` is already in the unit's scale (cores, bytes, units). */
  set(resource: string, unit: ResourceUnit, value: number): void {
    if (unit === 'cores') this.cpuCores.set(value);
    else if (unit === 'bytes') this.bytes.set({ resource }, value);
    else this.units.set({ resource }, value);
  }

  /** Drops every series (a resource no longer present disappears instead of keeping its last value). */
  reset(): void {
    this.cpuCores.reset();
    this.bytes.reset();
    this.units.reset();
  }
}
