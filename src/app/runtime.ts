/**
 * Optional subsystems that depend on the configuration: DRA accounting, the live Kubernetes source and the external
 * nominator. Loaded lazily so a snapshot-only run never loads the Kubernetes client.
 */
import type { ExtenderConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { KubeRuntime } from './kube-runtime.js';
import type { StartDeps } from './start.js';

export interface Runtime {
  startDeps: Omit<StartDeps, 'logger'>;
  onConfig(next: ExtenderConfig): void;
  stop(): Promise<void> | void;
  clearNominations(): Promise<number>;
  /** The live source's runtime (tracker, gates, direct reader, kubeConfig) once the kube source was built. */
  kube(): KubeRuntime | undefined;
}

export function buildRuntime(_config: ExtenderConfig, logger: Logger): Runtime {
  let kube: KubeRuntime | undefined;
  return {
    startDeps: {
      kubeSourceFactory: async (choice, ctx) => {
        // Dynamic import: @kubernetes/client-node is loaded only when the live source is chosen.
        const { kubeSourceFactory } = await import('./kube-runtime.js');
        return kubeSourceFactory(choice, ctx, (runtime) => {
          kube = runtime;
        });
      },
    },
    onConfig: () => {},
    stop: () => {},
    clearNominations: async () => {
      logger.error('nominations clear needs the live Kubernetes source (--kubeconfig or in-cluster)');
      return 2;
    },
    kube: () => kube,
  };
}
