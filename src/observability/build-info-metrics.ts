/**
 * `kube_ledger_build_info`: which version, commit and Node.js a replica runs, as the one series of a gauge set to 1
 * (the Prometheus convention for build metadata, so a query can join it onto any other series).
 */
import { Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './metric-conventions.js';

export interface BuildIdentity {
  /** package.json's version, the one place the version lives. */
  version: string;
  /** The commit the build came from (`unknown` when not stamped). */
  revision: string;
  /** `process.version` of the running Node.js. */
  nodeVersion: string;
}

export function buildInfoMetrics(r: Registry[]) {
  return {
    buildInfo: new Gauge({
      name: METRIC_PREFIX + 'build_info',
      help: 'Always 1; the labels say which kube-ledger version, source revision and Node.js version this process runs.',
      labelNames: ['version', 'revision', 'node_version'] as const,
      registers: r,
    }),
  };
}

/** Publishes the process's identity; replaces any identity published before. */
export function recordBuildInfo(metric: ReturnType<typeof buildInfoMetrics>['buildInfo'], identity: BuildIdentity): void {
  metric.reset();
  metric.set({ version: identity.version, revision: identity.revision, node_version: identity.nodeVersion }, 1);
}
