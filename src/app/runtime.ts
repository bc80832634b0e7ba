/**
 * Optional subsystems that depend on the configuration: DRA accounting, the live Kubernetes source and the external
 * nominator. Loaded lazily so a snapshot-only run never loads the Kubernetes client.
 */
import type { ExtenderConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { RunningNominator } from '../nomination/kube-nominator.js';
import type { KubeRuntime } from './kube-runtime.js';
import { schedulingOptionsFrom } from './scheduling-options.js';
import { chooseSource, type StartDeps } from './start.js';

export interface Runtime {
  startDeps: Omit<StartDeps, 'logger'>;
  onConfig(next: ExtenderConfig): void;
  stop(): Promise<void> | void;
  clearNominations(): Promise<number>;
  /** The live source's runtime (tracker, gates, direct reader, kubeConfig) once the kube source was built. */
  kube(): KubeRuntime | undefined;
}

export function buildRuntime(initial: ExtenderConfig, logger: Logger): Runtime {
  let kube: KubeRuntime | undefined;
  let config = initial;
  let nominator: RunningNominator | undefined;
  return {
    startDeps: {
      kubeSourceFactory: async (choice, ctx) => {
        // Dynamic import: @kubernetes/client-node is loaded only when the live source is chosen.
        const { kubeSourceFactory } = await import('./kube-runtime.js');
        const { NOMINATOR_CONTROLLER, startKubeNominator, tapLedger } = await import('../nomination/kube-nominator.js');
        const built = await kubeSourceFactory(choice, ctx, (runtime) => {
          kube = runtime;
        });
        // The nominator needs the ledger the source feeds; it idles (no Lease, no writes) until nomination.enabled.
        tapLedger(built.source, (ledger) => {
          const live = kube;
          if (!live) return;
          nominator = startKubeNominator({
            kubeConfig: live.kubeConfig,
            ledger,
            hasSynced: () => live.source.hasSynced(),
            gate: live.gate(NOMINATOR_CONTROLLER),
            reader: live.reader,
            gateEnabled: () => live.config().freshness.gate.enabled,
            config,
            schedulingOptions: () => schedulingOptionsFrom(config),
            metrics: ctx.metrics,
            logger,
          });
        });
        return built;
      },
    },
    onConfig: (next) => {
      config = next;
      kube?.setConfig(next);
      nominator?.onConfig(next);
    },
    stop: async () => {
      await nominator?.stop();
    },
    clearNominations: async () => {
      const choice = chooseSource(config);
      if (choice.kind !== 'kube') {
        logger.error('nominations clear needs the live Kubernetes source (--kubeconfig or in-cluster)');
        return 2;
      }
      const { loadKubeConfig } = await import('./kube-runtime.js');
      const { clearNominationsWith } = await import('../nomination/kube-nominator.js');
      const result = await clearNominationsWith(loadKubeConfig(choice.kubeconfig), logger, config);
      process.stdout.write(`cleared ${result.cleared} nominations owned by kube-ledger (${result.skipped} no longer ours, ${result.failed} failed)\n`);
      return result.failed > 0 ? 1 : 0;
    },
    kube: () => kube,
  };
}
