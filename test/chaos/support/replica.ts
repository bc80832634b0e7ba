/**
 * One kube-ledger replica as a process behind its own tagging proxy (so the fake's request log attributes every
 * request to it), plus the probes the restart and HA scenarios share: when a replica's caches first synced
 * (the end of its first complete LIST of every resource) and what it answers to a preemption before that.
 */
import { KUBE_RESOURCES } from '../../../src/cluster/kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver/index.js';
import { writeKubeconfigFile } from '../../support/fake-apiserver/kubeconfig.js';
import { LedgerProcess } from './ledger-process.js';
import { startTaggingProxy, type TaggingProxy } from './tagging-proxy.js';
import { outcomeOf, replicaOf } from './write-audit.js';

export interface Replica {
  name: string;
  proxy: TaggingProxy;
  process: LedgerProcess;
  /** performance.now() just before the process was spawned. */
  spawnedAt: number;
  stop(): Promise<void>;
}

export function nominatorEnv(ttlSeconds: number, namespace = 'canary'): Record<string, string> {
  return {
    KUBE_LEDGER_NOMINATION_ENABLED: 'true',
    KUBE_LEDGER_NOMINATION_NAMESPACES: namespace,
    KUBE_LEDGER_NOMINATION_TTL_SECONDS: String(ttlSeconds),
    KUBE_LEDGER_LOGGING_LEVEL: 'info',
    // Paged lists: these scenarios hold a replica's pod LIST and time its sync by its list requests (firstSyncedAt).
    KUBE_LEDGER_CLUSTER_WATCH_LIST: 'false',
  };
}

export async function startReplica(api: FakeApiServer, dir: string, name: string, env: Record<string, string>): Promise<Replica> {
  const proxy = await startTaggingProxy(api.url, name);
  const kubeconfig = writeKubeconfigFile(proxy.url, dir, { fileName: `kubeconfig-${name}` });
  const spawnedAt = performance.now();
  const process = await LedgerProcess.start(name, { kubeconfig, env });
  return {
    name, proxy, process, spawnedAt,
    async stop() {
      await process.kill9();
      await proxy.close();
    },
  };
}

/**
 * performance.now() when the replica's first successful LIST of each resource it watches had been answered
 * completely (single pages here), i.e. the earliest moment its cache could have synced; undefined until all did.
 */
export function firstSyncedAt(api: FakeApiServer, replica: string, since: number): number | undefined {
  let latest = 0;
  for (const resource of KUBE_RESOURCES) {
    const list = api
      .requests({ verb: 'list', pathPrefix: resource.collectionPath })
      .find((r) => r.startedAt >= since && replicaOf(r) === replica && outcomeOf(r) === '2xx' && r.endedAt !== undefined);
    if (!list?.endedAt) return undefined;
    latest = Math.max(latest, list.endedAt);
  }
  return latest;
}

/** Asks for a preemption whose victims are real bound pods; returns how many victims kube-ledger approved. */
export async function approvedVictims(baseUrl: string, victims: Record<string, string[]>): Promise<{ status: number; approved: number }> {
  const pod = {
    metadata: { name: 'preemptor', namespace: 'canary', uid: 'uid-preemptor', resourceVersion: '1' },
    spec: { priority: 1000, containers: [{ name: 'c', resources: { requests: { cpu: '7' } } }] },
    status: { phase: 'Pending' },
  };
  const meta = Object.fromEntries(Object.entries(victims).map(([node, uids]) => [node, { Pods: uids.map((UID) => ({ UID })), NumPDBViolations: 0 }]));
  const response = await fetch(`${baseUrl}/preempt`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ Pod: pod, NodeNameToVictims: null, NodeNameToMetaVictims: meta }),
    signal: AbortSignal.timeout(5000),
  });
  const body = (await response.json()) as { NodeNameToMetaVictims?: Record<string, { Pods?: unknown[] }> | null };
  const approved = Object.values(body.NodeNameToMetaVictims ?? {}).reduce((sum, v) => sum + (v.Pods?.length ?? 0), 0);
  return { status: response.status, approved };
}
