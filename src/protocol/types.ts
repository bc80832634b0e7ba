/**
 * kube-scheduler extender wire types (k8s.io/kube-scheduler/extender/v1). The Go structs carry no json tags, so the
 * keys on the wire are the Go field names. Embedded Kubernetes objects (Pod, NodeList, Node) use their own lowercase
 * json tags and are passed through untouched.
 */

/** A Kubernetes object as JSON; `scheduling/` narrows it. */
export type WireObject = { [key: string]: unknown };

/** v1.NodeList as JSON: `{"metadata": {...}, "items": [...]}`. */
export interface WireNodeList {
  apiVersion?: string;
  kind?: string;
  metadata?: WireObject;
  items: WireObject[];
}

export interface ExtenderArgs {
  Pod: WireObject | null;
  /** Set when the extender is not nodeCacheCapable. */
  Nodes: WireNodeList | null;
  /** Set when the extender is nodeCacheCapable. */
  NodeNames: string[] | null;
}

/** map[string]string: node name → reason. */
export type FailedNodesMap = Record<string, string>;

export interface ExtenderFilterResult {
  Nodes: WireNodeList | null;
  NodeNames: string[] | null;
  FailedNodes: FailedNodesMap | null;
  FailedAndUnresolvableNodes: FailedNodesMap | null;
  Error: string;
}

export interface HostPriority {
  Host: string;
  /** int64 in Go; MinExtenderPriority 0 .. MaxExtenderPriority 10. */
  Score: number;
}

export type HostPriorityList = HostPriority[];

export interface Victims {
  Pods: WireObject[];
  NumPDBViolations: number;
}

export interface MetaPod {
  UID: string;
}

export interface MetaVictims {
  Pods: MetaPod[];
  NumPDBViolations: number;
}

export interface ExtenderPreemptionArgs {
  Pod: WireObject | null;
  /** Set when the extender is not nodeCacheCapable. */
  NodeNameToVictims: Record<string, Victims> | null;
  /** Set when the extender is nodeCacheCapable. */
  NodeNameToMetaVictims: Record<string, MetaVictims> | null;
}

export interface ExtenderPreemptionResult {
  NodeNameToMetaVictims: Record<string, MetaVictims> | null;
}

export const MIN_EXTENDER_PRIORITY = 0;
export const MAX_EXTENDER_PRIORITY = 10;
