/**
 * What batch-nomination tests read back from the fake API server: writes per pod (pods/status PATCHes and Events, from
 * the request log and the stored Events), and whether any node holds more hints than fit as kube-scheduler counts
 * them (pkg/scheduler/framework/runtime `addGENominatedPods`: a pending pod nominated to a node reserves its requests
 * against pods of equal or lower priority). Pods here request cpu only, in whole cores.
 */
import type { PodObject } from '../../src/ledger/objects.js';
import type { FakeApiServer } from '../support/fake-apiserver/index.js';

export interface PodWrites {
  patches: number;
  events: number;
}

/** PATCHes of pods/status and Events, per pod name. */
export function writesPerPod(api: FakeApiServer): Map<string, PodWrites> {
  const out = new Map<string, PodWrites>();
  const entry = (name: string): PodWrites => {
    let found = out.get(name);
    if (!found) out.set(name, (found = { patches: 0, events: 0 }));
    return found;
  };
  for (const r of api.requests({ resource: 'pods', verb: 'patch', subresource: 'status' })) entry(r.info.name ?? '').patches += 1;
  for (const e of api.list('events')) entry(String((e['involvedObject'] as { name?: string } | undefined)?.name ?? '')).events += 1;
  return out;
}

export interface ServerPod {
  name: string;
  node: string;
  nominated: string;
  priority: number;
  cpu: number;
}

export function serverPods(api: FakeApiServer): ServerPod[] {
  return api.list('pods').map((p) => {
    const object = p as unknown as PodObject;
    const requests = object.spec?.containers?.[0]?.resources?.requests ?? {};
    return {
      name: object.metadata.name ?? '',
      node: object.spec?.nodeName ?? '',
      nominated: object.status?.nominatedNodeName ?? '',
      priority: object.spec?.priority ?? 0,
      cpu: Number(requests['cpu'] ?? '0'),
    };
  });
}

/**
 * Nodes whose hints do not all fit as kube-scheduler counts them: for each pending pod nominated to a node, its cpu
 * plus the bound pods' and every other nominated pod's of equal or higher priority must fit the node's cpu.
 */
export function overNominatedNodes(api: FakeApiServer, cpuByNode: Record<string, number>): string[] {
  const pods = serverPods(api);
  const problems: string[] = [];
  for (const [name, capacity] of Object.entries(cpuByNode)) {
    const bound = pods.filter((p) => p.node === name).reduce((sum, p) => sum + p.cpu, 0);
    const hints = pods.filter((p) => p.node === '' && p.nominated === name);
    for (const h of hints) {
      const reserved = hints.filter((o) => o !== h && o.priority >= h.priority).reduce((sum, o) => sum + o.cpu, 0);
      if (bound + reserved + h.cpu > capacity) problems.push(`${name}: ${h.name} (${h.cpu} cpu, priority ${h.priority}) beside ${bound} bound + ${reserved} reserved > ${capacity}`);
    }
  }
  return problems;
}

export function hintsOn(api: FakeApiServer, nodeName: string): string[] {
  return serverPods(api).filter((p) => p.node === '' && p.nominated === nodeName).map((p) => p.name).sort();
}
