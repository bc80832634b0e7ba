/**
 * Request bodies as kube-scheduler writes them: Go field names, nulls for unused pointers, compact, no trailing
 * newline; and the same requests in the lowercase shape schedulers up to 1.16 sent (`pod`, `nodes`, `nodenames`).
 */
export const POD = {
  metadata: { name: 'trainer-0', namespace: 'ml', uid: 'pod-uid-1', resourceVersion: '48213' },
  spec: { containers: [{ name: 'main', resources: { requests: { cpu: '2', memory: '4Gi' } } }] },
  status: { phase: 'Pending' },
};

export function node(name: string): Record<string, unknown> {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
  };
}

const podJson = JSON.stringify(POD);
const nodeListJson = (names: string[]): string =>
  JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '77' }, items: names.map(node) });

export const NAMES = ['node-a', 'node-b', 'node-c'];

/** Extender args, nodeCacheCapable (NodeNames), Go shape. */
export const GO_ARGS_NAMES = `{"Pod":${podJson},"Nodes":null,"NodeNames":["node-a","node-b","node-c"]}`;
/** Extender args, full Nodes, Go shape. */
export const GO_ARGS_NODES = `{"Pod":${podJson},"Nodes":${nodeListJson(NAMES)},"NodeNames":null}`;
/** Legacy (<=1.16) lowercase json tags. */
export const LEGACY_ARGS_NAMES = `{"pod":${podJson},"nodes":null,"nodenames":["node-a","node-b","node-c"]}`;
export const LEGACY_ARGS_NODES = `{"pod":${podJson},"nodes":${nodeListJson(NAMES)},"nodenames":null}`;

export const GO_PREEMPT_META =
  `{"Pod":${podJson},"NodeNameToVictims":null,` +
  `"NodeNameToMetaVictims":{"node-a":{"Pods":[{"UID":"victim-1"},{"UID":"victim-2"}],"NumPDBViolations":1}}}`;
export const GO_PREEMPT_FULL =
  `{"Pod":${podJson},"NodeNameToVictims":{"node-a":{"Pods":[${JSON.stringify({ metadata: { name: 'v1', uid: 'victim-1' } })}],` +
  `"NumPDBViolations":0}},"NodeNameToMetaVictims":null}`;
export const LEGACY_PREEMPT_META =
  `{"pod":${podJson},"nodenametovictims":null,` +
  `"nodenametometavictims":{"node-a":{"pods":[{"uid":"victim-1"},{"uid":"victim-2"}],"numpdbviolations":1}}}`;
export const LEGACY_PREEMPT_FULL =
  `{"pod":${podJson},"nodenametovictims":{"node-a":{"pods":[${JSON.stringify({ metadata: { name: 'v1', uid: 'victim-1' } })}],` +
  `"numpdbviolations":0}},"nodenametometavictims":null}`;
