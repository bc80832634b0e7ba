/**
 * Optional subsystems that depend on the configuration: DRA accounting, the live Kubernetes source and the external
 * nominator. Loaded lazily so a snapshot-only run never loads the Kubernetes client.
 */
import type { ExtenderConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { StartDeps } from './start.js';

export interface Runtime {
  startDeps: Omit<StartDeps, 'logger'>;
  onConfig(next: ExtenderConfig): void;
  stop(): Promise<void> | void;
  clearNominations(): Promise<number>;
}

export function buildRuntime(_config: ExtenderConfig, logger: Logger): Runtime {
  return {
    startDeps: {},
    onConfig: () => {},
    stop: () => {},
    clearNominations: async () => {
      logger.error('nominations clear needs the live Kubernetes source (--kubeconfig or in-cluster)');
      return 2;
    },
  };
}
