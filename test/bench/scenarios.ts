/** The benchmark scenarios and the synthetic clusters they run against. */
import type { ClusterOptions } from './synthetic-cluster.js';

export const SMALL_CLUSTER: ClusterOptions = { nodes: 500, podsPerNode: 30, seed: 20261101, draFraction: 0.1, pendingPods: 200 };
export const LARGE_CLUSTER: ClusterOptions = { nodes: 5000, podsPerNode: 30, seed: 20261102, draFraction: 0.1, pendingPods: 500 };

/** Bodies per "distinct pods" scenario: every call a different pending pod (distinct requests and priorities). */
export const DISTINCT_BODIES = 200;

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
  /** 'same': one pod every call; 'distinct': DISTINCT_BODIES pending pods in turn; 'few': a handful of bodies. */
  pods: 'same' | 'distinct' | 'few';
  /** The Go reference extender serves this verb and shape, so it is checked for agreement and raced. */
  reference: boolean;
}

export const SCENARIOS: readonly Scenario[] = [
  { name: 'filter-names-500-c1-same', description: 'filter NodeNames x500, c=1, same pod every call', cluster: 'small',
    path: '/filter', body: 'nodeNames', nodes: 500, connections: 1, pods: 'same', reference: true },
  { name: 'filter-names-500-c1-distinct', description: 'filter NodeNames x500, c=1, every call a different pod',
    cluster: 'small', path: '/filter', body: 'nodeNames', nodes: 500, connections: 1, pods: 'distinct', reference: true },
  { name: 'filter-names-500-c4', description: 'filter NodeNames x500, c=4, distinct pods', cluster: 'small', path: '/filter',
    body: 'nodeNames', nodes: 500, connections: 4, pods: 'distinct', reference: true },
  { name: 'prioritize-500-c1', description: 'prioritize NodeNames x500, c=1, distinct pods', cluster: 'small',
    path: '/prioritize', body: 'nodeNames', nodes: 500, connections: 1, pods: 'distinct', reference: true },
  { name: 'filter-nodes-500-c1', description: 'filter full Nodes x500, c=1', cluster: 'small', path: '/filter',
    body: 'fullNodes', nodes: 500, connections: 1, pods: 'few', reference: true },
  { name: 'preempt-50-c1', description: 'preempt 50 candidates, c=1 (no Go reference)', cluster: 'small', path: '/preempt',
    body: 'preempt', nodes: 50, connections: 1, pods: 'few', reference: false },
  { name: 'filter-names-5000-c4', description: 'filter NodeNames x5000, c=4, distinct pods', cluster: 'large', path: '/filter',
    body: 'nodeNames', nodes: 5000, connections: 4, pods: 'distinct', reference: true },
];

/** The scenario the latency and floor targets name, and whose CPU profile `--cpu-prof` records. */
export const DISTINCT_FILTER_SCENARIO = 'filter-names-500-c1-distinct';
