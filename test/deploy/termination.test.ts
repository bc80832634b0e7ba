/**
 * The pod's termination matches the process's graceful stop (src/main.ts): on SIGTERM kube-ledger keeps serving the
 * verbs for server.drainMs (/readyz 503, replies close their connections) while endpoints drop the pod, then waits up to
 * server.shutdownDeadlineMs for in-flight requests. The kubelet's grace period must cover both with room to stop the
 * informers, or SIGKILL cuts the drain short. No preStop hook is needed: the process drains on SIGTERM itself, which
 * the kubelet sends as the endpoints controller starts removing the pod.
 */
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { DEPLOY_DIR, render, type KubeObject } from './kustomize.js';

/** Time allowed after the listeners close: stopping the informers and exiting. */
const EXIT_MARGIN_SECONDS = 5;

describe('deploy/: termination grace covers the drain and the shutdown deadline', () => {
  for (const dir of ['base', 'overlays/dev', 'overlays/production']) {
    it(dir, () => {
      const objects = render(join(DEPLOY_DIR, dir));
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'kube-ledger') as KubeObject & { spec: any };
      const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'kube-ledger-config') as KubeObject & { data: Record<string, string> };
      const scratch = mkdtempSync(join(tmpdir(), 'kl-termination-'));
      try {
        const file = join(scratch, 'extender.yaml');
        writeFileSync(file, configMap.data['extender.yaml']!);
        const { drainMs, shutdownDeadlineMs } = loadConfig({ file }).server;
        const grace: number = deployment.spec.template.spec.terminationGracePeriodSeconds;
        const needed = (drainMs + shutdownDeadlineMs) / 1000 + EXIT_MARGIN_SECONDS;
        assert.ok(drainMs > 0, 'a drain period');
        assert.ok(grace >= needed, `terminationGracePeriodSeconds ${grace} < drain ${drainMs} ms + shutdown ${shutdownDeadlineMs} ms + ${EXIT_MARGIN_SECONDS} s`);
        assert.equal(deployment.spec.template.spec.containers[0].lifecycle?.preStop, undefined, 'the process drains on SIGTERM; a preStop would only delay it');
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    });
  }
});
