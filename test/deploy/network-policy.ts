/**
 * Evaluates a rendered NetworkPolicy the way the Kubernetes API defines it (networking.k8s.io/v1), so tests can ask
 * "would this connection be admitted?" without a cluster or a CNI: the policy selects pods of its namespace; a
 * connection in a direction the policy governs is admitted when some rule's ports and some rule's peers both match
 * (absent ports or peers match everything); a peer is an ipBlock, a podSelector (same namespace), a
 * namespaceSelector, or both selectors together. Traffic from the selected pod's own node (kubelet probes) is always
 * admitted, as the API documents.
 */
import type { KubeObject } from './kustomize.js';

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}
interface PolicyPort { protocol?: string; port?: number | string; endPort?: number }
interface PolicyPeer { podSelector?: LabelSelector; namespaceSelector?: LabelSelector; ipBlock?: { cidr: string; except?: string[] } }
interface PolicyRule { ports?: PolicyPort[]; from?: PolicyPeer[]; to?: PolicyPeer[] }
export interface NetworkPolicySpec {
  podSelector: LabelSelector;
  policyTypes?: Array<'Ingress' | 'Egress'>;
  ingress?: PolicyRule[];
  egress?: PolicyRule[];
}

/** The far end of a connection. */
export type Endpoint =
  | { kind: 'pod'; namespace: string; namespaceLabels?: Record<string, string>; labels: Record<string, string>; ip?: string }
  | { kind: 'node-local' }
  | { kind: 'address'; ip: string };

export interface Connection {
  peer: Endpoint;
  port: number;
  protocol?: 'TCP' | 'UDP';
}

export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = key in labels;
    if (operator === 'In' && !(has && values.includes(labels[key]!))) return false;
    if (operator === 'NotIn' && has && values.includes(labels[key]!)) return false;
    if (operator === 'Exists' && !has) return false;
    if (operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

function ipToNumber(ip: string): number {
  return ip.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

export function cidrContains(cidr: string, ip: string): boolean {
  const [base = '', bitsText = '32'] = cidr.split('/');
  const bits = Number(bitsText);
  const size = 2 ** (32 - bits);
  const start = Math.floor(ipToNumber(base) / size) * size;
  const address = ipToNumber(ip);
  return address >= start && address < start + size;
}

/** Namespaces carry kubernetes.io/metadata.name (set by the API server since 1.22) besides their own labels. */
function namespaceLabels(endpoint: Extract<Endpoint, { kind: 'pod' }>): Record<string, string> {
  return { ...endpoint.namespaceLabels, 'kubernetes.io/metadata.name': endpoint.namespace };
}

function peerMatches(peer: PolicyPeer, endpoint: Endpoint, policyNamespace: string): boolean {
  if (peer.ipBlock) {
    const ip = endpoint.kind === 'address' ? endpoint.ip : endpoint.kind === 'pod' ? endpoint.ip : undefined;
    return ip !== undefined && cidrContains(peer.ipBlock.cidr, ip) && !(peer.ipBlock.except ?? []).some((cidr) => cidrContains(cidr, ip));
  }
  if (endpoint.kind !== 'pod') return false;
  const namespaceOk = peer.namespaceSelector
    ? selectorMatches(peer.namespaceSelector, namespaceLabels(endpoint))
    : endpoint.namespace === policyNamespace;
  return namespaceOk && selectorMatches(peer.podSelector, endpoint.labels);
}

function portMatches(ports: PolicyPort[] | undefined, connection: Connection): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== (connection.protocol ?? 'TCP')) return false;
    if (p.port === undefined) return true;
    if (typeof p.port === 'string') throw new Error(`named port ${p.port}: the evaluator needs numbers`);
    return connection.port >= p.port && connection.port <= (p.endPort ?? p.port);
  });
}

function governs(spec: NetworkPolicySpec, direction: 'Ingress' | 'Egress'): boolean {
  if (spec.policyTypes) return spec.policyTypes.includes(direction);
  return direction === 'Ingress' || spec.egress !== undefined;
}

export class PolicyEvaluator {
  private readonly spec: NetworkPolicySpec;
  private readonly namespace: string;

  constructor(policy: KubeObject) {
    this.spec = policy.spec as NetworkPolicySpec;
    this.namespace = policy.metadata.namespace ?? 'default';
  }

  selects(namespace: string, labels: Record<string, string>): boolean {
    return namespace === this.namespace && selectorMatches(this.spec.podSelector, labels);
  }

  /** A connection from `connection.peer` to a selected pod. */
  admitsIngress(connection: Connection): boolean {
    if (connection.peer.kind === 'node-local') return true;
    if (!governs(this.spec, 'Ingress')) return true;
    return (this.spec.ingress ?? []).some((rule) => portMatches(rule.ports, connection)
      && (rule.from === undefined || rule.from.length === 0 || rule.from.some((peer) => peerMatches(peer, connection.peer, this.namespace))));
  }

  /** A connection from a selected pod to `connection.peer`. */
  admitsEgress(connection: Connection): boolean {
    if (!governs(this.spec, 'Egress')) return true;
    return (this.spec.egress ?? []).some((rule) => portMatches(rule.ports, connection)
      && (rule.to === undefined || rule.to.length === 0 || rule.to.some((peer) => peerMatches(peer, connection.peer, this.namespace))));
  }
}
