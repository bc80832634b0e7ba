/**
 * Pods whose resource fields vary the way the requests rule cares about (fast-check): containers and init containers
 * (sidecars) with or without requests, limits and DRA claims, pod-level resources, overhead, and resize status
 * (allocated resources, an Infeasible resize, pod-level status). Half the lists name both cpu and memory.
 */
import fc from 'fast-check';
import type { Container, PodObject } from '../../src/ledger/objects.js';

const quantity = fc.oneof(
  fc.integer({ min: 0, max: 4000 }).map((m) => `${m}m`),
  fc.integer({ min: 1, max: 900 }).map((m) => `${m}Mi`),
  fc.integer({ min: 1, max: 8 }).map(String),
);
const list = fc.dictionary(fc.constantFrom('cpu', 'memory', 'example.com/gpu'), quantity, { maxKeys: 3 });
// Half the lists name both cpu and memory, so the shortcut is taken often enough for the property to prove something.
const containerList = fc.oneof(list, fc.record({ cpu: quantity, memory: quantity }, { requiredKeys: ['cpu', 'memory'] }));
const container = (prefix: string) => fc.record({
  name: fc.integer({ min: 0, max: 3 }).map((i) => `${prefix}${i}`),
  requests: fc.option(containerList, { nil: undefined, freq: 4 }),
  limits: fc.option(containerList, { nil: undefined }),
  claims: fc.boolean(),
  sidecar: fc.boolean(),
});
type Generated = { name: string; requests: Record<string, string> | undefined; limits: Record<string, string> | undefined; claims: boolean; sidecar: boolean };

function specContainer(c: Generated, init: boolean): Container {
  const resources: NonNullable<Container['resources']> = {};
  if (c.requests) resources.requests = c.requests;
  if (c.limits) resources.limits = c.limits;
  if (c.claims) resources.claims = [{ name: 'gpu' }];
  return { name: c.name, ...(c.requests || c.limits || c.claims ? { resources } : {}), ...(init && c.sidecar ? { restartPolicy: 'Always' } : {}) };
}

export const podWithResources = fc.record({
  containers: fc.uniqueArray(container('c'), { maxLength: 3, selector: (c) => c.name }),
  init: fc.uniqueArray(container('i'), { maxLength: 2, selector: (c) => c.name }),
  podLevel: fc.option(fc.record({ requests: fc.option(list, { nil: undefined }), limits: fc.option(list, { nil: undefined }) }), { nil: undefined }),
  overhead: fc.option(list, { nil: undefined }),
  resize: fc.constantFrom('none', 'none', 'none', 'allocated', 'infeasible', 'pod-status'),
}).map(({ containers, init, podLevel, overhead, resize }): PodObject => {
  const out: PodObject = {
    metadata: { name: 'p', namespace: 'ns' },
    spec: {
      nodeName: 'n1',
      containers: containers.map((c) => specContainer(c, false)),
      initContainers: init.map((c) => specContainer(c, true)),
      ...(podLevel ? { resources: Object.fromEntries(Object.entries(podLevel).filter(([, v]) => v !== undefined)) } : {}),
      ...(overhead ? { overhead } : {}),
    },
    status: { phase: 'Running' },
  };
  const first = containers[0]?.name ?? 'c0';
  if (resize === 'allocated') out.status!.containerStatuses = [{ name: first, allocatedResources: { cpu: '3' } }];
  if (resize === 'infeasible') out.status!.conditions = [{ type: 'PodResizePending', reason: 'Infeasible' }];
  if (resize === 'pod-status') out.status!.resources = { requests: { memory: '1Gi' } };
  return out;
});

