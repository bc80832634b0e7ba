/** The benchmark scenarios and the synthetic clusters they run against. */
import type { ClusterOptions } from './synthetic-cluster.js';

export const SMALL_CLUSTER: ClusterOptions = { nodes: 500, podsPerNode: 30, seed: 20261101, draFraction: 0.1, pendingPods: 200 };
export const LARGE_CLUSTER: ClusterOptions = { nodes: 5000, podsPerNode: 30, seed: 20261102, draFraction: 0.1, pendingPods: 500 };

export type BodyKind = 'nodeNames' | 'fullNodes' | 'preempt';

export interface Scenario {
  name: string;
  description: string;
  cluster: 'small' | 'large';
  path: '/filter' | '/prioritize' | '/preempt';
  body: BodyKind;
  /** Nodes per request (candidates for preempt). */
  nodes: number;
  connections: number;
}

export const SCENARIOS: readonly Scenario[] = [
  { name: 'filter-names-500-c1', description: 'filter NodeNames x500, c=1', cluster: 'small', path: '/filter',
    body: 'nodeNames', nodes: 500, connections: 1 },
  { name: 'filter-names-500-c4', description: 'filter NodeNames x500, c=4', cluster: 'small', path: '/filter',
    body: 'nodeNames', nodes: 500, connections: 4 },
  { name: 'prioritize-500-c1', description: 'prioritize NodeNames x500, c=1', cluster: 'small', path: '/prioritize',
    body: 'nodeNames', nodes: 500, connections: 1 },
  { name: 'filter-nodes-500-c1', description: 'filter full Nodes x500, c=1', cluster: 'small', path: '/filter',
    body: 'fullNodes', nodes: 500, connections: 1 },
  { name: 'preempt-50-c1', description: 'preempt 50 candidates, c=1', cluster: 'small', path: '/preempt',
    body: 'preempt', nodes: 50, connections: 1 },
  { name: 'filter-names-5000-c4', description: 'filter NodeNames x5000, c=4', cluster: 'large', path: '/filter',
    body: 'nodeNames', nodes: 5000, connections: 4 },
];
