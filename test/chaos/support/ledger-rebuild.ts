/**
 * The reference for "the caches converged": a ledger built from scratch out of the fake API server's current
 * objects, trimmed exactly as the kube source trims them, exported as /debug/ledger exports. Polling the served
 * export until it equals this (with a deadline) proves that nothing was lost or left behind by a fault.
 */
import { isDeepStrictEqual } from 'node:util';
import { KUBE_RESOURCES } from '../../../src/cluster/kube/resources.js';
import type { ExtenderConfig } from '../../../src/config/schema.js';
import { ClusterLedger } from '../../../src/ledger/cluster-ledger.js';
import { DraLedger } from '../../../src/ledger/dra/dra-ledger.js';
import { exportLedger } from '../../../src/ledger/ledger-export.js';
import type { ClusterObject } from '../../../src/ledger/objects.js';
import type { FakeApiServer } from '../../support/fake-apiserver/index.js';
import { sleep } from '../../support/eventually.js';

/** JSON of the export a freshly built ledger gives for the server's objects right now. */
export function rebuiltExport(api: FakeApiServer, config: ExtenderConfig): unknown {
  const dra = new DraLedger({ numaAttributes: [config.dra.numaAttribute, ...config.dra.extraNumaAttributes], freshnessWindowMs: config.dra.freshnessWindowSeconds * 1000 });
  const ledger = new ClusterLedger({ dra });
  for (const resource of KUBE_RESOURCES) {
    const objects = api.list(resource.kind).map((o) => resource.trim(o as unknown as ClusterObject));
    ledger.apply({ type: 'replaced', kind: resource.kind, objects });
  }
  return JSON.parse(JSON.stringify(exportLedger(ledger))) as unknown;
}

export async function servedExport(baseUrl: string): Promise<unknown> {
  const response = await fetch(`${baseUrl}/debug/ledger`, { signal: AbortSignal.timeout(5000) });
  if (response.status !== 200) throw new Error(`/debug/ledger answered ${response.status}`);
  return response.json() as Promise<unknown>;
}

export interface Convergence {
  ms: number;
  polls: number;
}

/** Polls /debug/ledger until it equals the rebuilt export; throws with both counts and the first differing node. */
export async function awaitConvergence(baseUrl: string, api: FakeApiServer, config: ExtenderConfig, timeoutMs: number): Promise<Convergence> {
  const started = Date.now();
  let polls = 0;
  let last: { served: unknown; rebuilt: unknown } | undefined;
  while (Date.now() - started < timeoutMs) {
    polls += 1;
    try {
      const served = await servedExport(baseUrl);
      const rebuilt = rebuiltExport(api, config);
      if (isDeepStrictEqual(served, rebuilt)) return { ms: Date.now() - started, polls };
      last = { served, rebuilt };
    } catch (err) {
      last = { served: String(err), rebuilt: undefined };
    }
    await sleep(100);
  }
  throw new Error(`the served ledger did not converge to the rebuilt one within ${timeoutMs} ms: ${describeDifference(last)}`);
}

function describeDifference(last: { served: unknown; rebuilt: unknown } | undefined): string {
  if (!last) return 'no answer';
  const served = last.served as { counts?: unknown; nodes?: Array<{ node: string }> } | string;
  const rebuilt = last.rebuilt as { counts?: unknown; nodes?: Array<{ node: string }> } | undefined;
  if (typeof served === 'string' || !rebuilt) return String(served);
  const servedNodes = new Map((served.nodes ?? []).map((n) => [n.node, n]));
  const rebuiltNodes = new Map((rebuilt.nodes ?? []).map((n) => [n.node, n]));
  const names = [...new Set([...servedNodes.keys(), ...rebuiltNodes.keys()])].sort();
  const differing = names.find((name) => !isDeepStrictEqual(servedNodes.get(name), rebuiltNodes.get(name)));
  return `counts served ${JSON.stringify(served.counts)} vs rebuilt ${JSON.stringify(rebuilt.counts)}; first differing node ${differing ?? '(none; top-level fields differ)'}: `
    + `served ${JSON.stringify(differing ? servedNodes.get(differing) : undefined)?.slice(0, 600)} vs rebuilt ${JSON.stringify(differing ? rebuiltNodes.get(differing) : undefined)?.slice(0, 600)}`;
}
