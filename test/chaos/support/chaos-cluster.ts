/**
 * A small cluster for the hostile-input run and the Go-shaped requests valid against it (one per verb and request
 * shape), with the answers the extender must give to them.
 */
import assert from 'node:assert/strict';
import { node, pod } from '../../support/builders.js';

export const CHAOS_CLUSTER = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    node('big', { cpu: '8', memory: '32Gi', 'example.com/gpu': '2' }, { rv: '10', labels: { zone: 'a' } }),
    node('small', { cpu: '2', memory: '4Gi', 'example.com/gpu': '2' }, { rv: '10', labels: { zone: 'a' } }),
    node('full', { cpu: '4', memory: '8Gi', 'example.com/gpu': '2' }, { rv: '10', labels: { zone: 'a' } }),
    pod('default', 'filler', { node: 'full', cpu: '3500m', uid: 'u-filler', priority: 0, memory: '64Mi', rv: '20' }),
    pod('default', 'low-a', { node: 'small', cpu: '1', uid: 'u-low-a', priority: 0, memory: '64Mi', rv: '20' }),
    pod('default', 'low-b', { node: 'small', cpu: '500m', uid: 'u-low-b', priority: 10, memory: '64Mi', rv: '20' }),
    pod('default', 'pending', { cpu: '1500m', uid: 'u-pending', priority: 100, memory: '64Mi', rv: '20' }),
  ],
};

export const NODE_NAMES = ['big', 'small', 'full'];

/** The pending pod as kube-scheduler sends it, with init containers and overhead so mutations reach them. */
export const WIRE_POD = {
  metadata: { name: 'pending', namespace: 'default', uid: 'u-pending', resourceVersion: '20', labels: { app: 'x' } },
  spec: {
    priority: 100,
    initContainers: [{ name: 'init', resources: { requests: { cpu: '100m' }, limits: { cpu: '200m' } } }],
    containers: [{ name: 'c', resources: { requests: { cpu: '1500m', memory: '64Mi' }, limits: { memory: '128Mi' } } }],
    overhead: { memory: '1Mi' },
  },
  status: { phase: 'Pending' },
};

const WIRE_NODES = CHAOS_CLUSTER.items.filter((item) => item.kind === 'Node');
const VICTIM_PODS = CHAOS_CLUSTER.items.filter((item) => item.kind === 'Pod' && item.metadata.name?.startsWith('low-'));

export type Verb = 'filter' | 'prioritize' | 'preempt';
export const VERBS: readonly Verb[] = ['filter', 'prioritize', 'preempt'];

export interface ValidRequest {
  name: string;
  verb: Verb;
  body: Record<string, unknown>;
}

export const VALID_REQUESTS: readonly ValidRequest[] = [
  { name: 'filter NodeNames', verb: 'filter', body: { Pod: WIRE_POD, Nodes: null, NodeNames: NODE_NAMES } },
  { name: 'filter Nodes', verb: 'filter', body: { Pod: WIRE_POD, Nodes: { metadata: {}, items: WIRE_NODES }, NodeNames: null } },
  { name: 'prioritize NodeNames', verb: 'prioritize', body: { Pod: WIRE_POD, Nodes: null, NodeNames: NODE_NAMES } },
  { name: 'prioritize Nodes', verb: 'prioritize', body: { Pod: WIRE_POD, Nodes: { metadata: {}, items: WIRE_NODES }, NodeNames: null } },
  { name: 'preempt meta victims', verb: 'preempt', body: { Pod: WIRE_POD, NodeNameToVictims: null,
    NodeNameToMetaVictims: { small: { Pods: [{ UID: 'u-low-a' }, { UID: 'u-low-b' }], NumPDBViolations: 1 } } } },
  { name: 'preempt full victims', verb: 'preempt', body: { Pod: WIRE_POD, NodeNameToMetaVictims: null,
    NodeNameToVictims: { small: { Pods: VICTIM_PODS, NumPDBViolations: 0 } } } },
];

export function validRequestsFor(verb: Verb): ValidRequest[] {
  return VALID_REQUESTS.filter((request) => request.verb === verb);
}

/** What the cluster above implies, checked once on the first answers; later answers must equal those exactly. */
export function assertExpectedAnswer(request: ValidRequest, reply: any): void {
  if (request.verb === 'filter') {
    const passed = request.body['NodeNames'] ? reply.NodeNames : reply.Nodes.items.map((n: any) => n.metadata.name);
    assert.deepEqual(passed, ['big'], request.name);
    assert.deepEqual(Object.keys({ ...reply.FailedNodes, ...reply.FailedAndUnresolvableNodes }).sort(), ['full', 'small']);
    assert.equal(reply.Error, '');
  } else if (request.verb === 'prioritize') {
    assert.deepEqual(reply.map((h: { Host: string }) => h.Host), NODE_NAMES, request.name);
    assert.ok(reply[0].Score > reply[1].Score, JSON.stringify(reply));
  } else {
    const victims = reply.NodeNameToMetaVictims.small;
    assert.ok(victims && victims.Pods.length >= 1, `${request.name}: ${JSON.stringify(reply)}`);
    for (const victim of victims.Pods) assert.ok(['u-low-a', 'u-low-b'].includes(victim.UID));
  }
}
