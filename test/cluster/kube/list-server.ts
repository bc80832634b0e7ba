/**
 * Hand-written list servers for the reflector's list tests (pipelined pages, the unpaginated fallback): each test
 * answers list requests itself, byte by byte when it must, and a Pod reflector on a plain KubeApiClient lists them.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiClient } from '../../../src/cluster/kube/api-client.js';
import { Reflector } from '../../../src/cluster/kube/reflector.js';
import { kubeResource } from '../../../src/cluster/kube/resources.js';
import { replaceAsOneChange, type ClusterChange, type ClusterSink } from '../../../src/ledger/changes.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { eventually } from '../../support/eventually.js';

export type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => void;

export async function listServer(handler: Handler): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => handler(request, response, new URL(request.url ?? '/', 'http://x')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export function kubeConfigFor(server: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

export function podJson(name: string): string {
  return JSON.stringify({ metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '5' },
    spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] }, status: { phase: 'Running' } });
}

export function head(continueToken: string | undefined): string {
  const metadata = continueToken === undefined ? { resourceVersion: '10' } : { resourceVersion: '10', continue: continueToken };
  return `{"kind":"PodList","apiVersion":"v1","metadata":${JSON.stringify(metadata)},"items":[`;
}

/** A Pod reflector on `url`, recording the changes it delivers; `watch` never opens (the list is what is tested). */
export function podReflector(url: string): { reflector: Reflector; changes: ClusterChange[] } {
  const changes: ClusterChange[] = [];
  const sink: ClusterSink = {
    apply: (c) => void changes.push(c),
    applyBatch: (cs) => void changes.push(...cs),
    beginReplace: (kind) => replaceAsOneChange(kind, sink.apply),
  };
  const tracker = { recordReplace: () => {}, recordObjectEvent: () => {}, recordBookmark: () => {} };
  const reflector = new Reflector({
    resource: kubeResource('Pod'), client: new KubeApiClient(kubeConfigFor(url)), sink, tracker, logger: silentLogger,
    tuning: { pageSize: 2, listTimeoutMs: 5000, watchList: false, watchBackoff: { initialMs: 20, maxMs: 50, jitter: 0 },
      relistBackoff: { initialMs: 20, maxMs: 50, jitter: 0 } },
  });
  return { reflector, changes };
}

export function listedNames(changes: readonly ClusterChange[]): string[] {
  const replaced = changes.find((c) => c.type === 'replaced');
  assert.ok(replaced && replaced.type === 'replaced', 'one replaced change');
  return replaced.objects.map((o) => o.metadata.name ?? '');
}

/** Answers watches with a stream that stays open and silent. */
export function holdWatch(response: ServerResponse): void {
  response.writeHead(200, { 'Content-Type': 'application/json' });
  response.write('');
}

/** Servers and reflectors a test started, stopped after it. */
export class Started {
  readonly servers: Server[] = [];
  readonly reflectors: Reflector[] = [];

  /** A list server for this test, stopped after it; its URL. */
  async server(handler: Handler): Promise<string> {
    const { server, url } = await listServer(handler);
    this.servers.push(server);
    return url;
  }

  /** A Pod reflector on `url`, started: the names of its first list once it has synced (within `timeoutMs`). */
  async listed(url: string, what: string, timeoutMs: number): Promise<string[]> {
    const { reflector, changes } = podReflector(url);
    this.reflectors.push(reflector);
    reflector.start();
    await eventually(() => reflector.hasSynced(), what, timeoutMs);
    return listedNames(changes);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.reflectors.splice(0).map((r) => r.stop()));
    for (const server of this.servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
}
