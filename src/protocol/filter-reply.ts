/**
 * A filter answer as the scan builds it, kept as the JSON fragments the reply is made of: a node's name arrives
 * already encoded as a JSON string (the ledger encodes a known node's name once, when it first sees the node), a
 * reason is encoded once per distinct string, and each failing node is one `"name":"reason"` fragment. Encoding the
 * reply is then joining fragments. Why: the map-shaped FailedNodes (a dictionary object keyed by a few hundred
 * fresh names, then JSON.stringify of it) cost more than the whole fit scan.
 *
 * It reads as an ExtenderFilterResult for whoever inspects it (shadow mode, logs, tests): the fields are built on
 * first read, from the same fragments the wire gets, so what is read is what is sent.
 */
import type { ExtenderFilterResult, FailedNodesMap, WireNodeList, WireObject } from './types.js';

const quote = JSON.stringify as (value: string) => string;

/** Reasons are a few stable strings (scheduling/reasons.ts); each is encoded once. Bounded in case they are not. */
const MAX_QUOTED_REASONS = 1024;
const quotedReasons = new Map<string, string>();

function quotedReason(reason: string): string {
  let quoted = quotedReasons.get(reason);
  if (quoted === undefined) {
    if (quotedReasons.size >= MAX_QUOTED_REASONS) quotedReasons.clear();
    quoted = quote(reason);
    quotedReasons.set(reason, quoted);
  }
  return quoted;
}

export class FilterReply implements ExtenderFilterResult {
  /** Indexes (into the request's candidates) of the passing nodes, in request order. */
  readonly passed: number[] = [];
  /** NodeNames mode: the passing names as JSON strings, parallel to `passed`. */
  readonly passedQuoted: string[] = [];
  /** `"name":"reason"` per failing node, in request order. */
  readonly failedEntries: string[] = [];
  readonly unresolvableEntries: string[] = [];
  private built: Partial<ExtenderFilterResult> = {};

  /**
   * `names` are the candidates as the request named them; in Nodes mode `wires[i]` is the request's Node object for
   * `names[i]` and `nodeList` the request's NodeList (its other fields are echoed).
   */
  constructor(
    readonly names: readonly string[],
    readonly wires?: readonly WireObject[],
    readonly nodeList?: WireNodeList | null,
  ) {}

  get namesMode(): boolean {
    return this.wires === undefined;
  }

  /** `quotedName`: the name as a JSON string when known (a ledger node's), else it is encoded here. */
  pass(index: number, quotedName: string | undefined): void {
    this.passed.push(index);
    if (this.wires === undefined) this.passedQuoted.push(quotedName ?? quote(this.names[index]!));
  }

  fail(index: number, quotedName: string | undefined, reason: string, unresolvable: boolean): void {
    const entry = `${quotedName ?? quote(this.names[index]!)}:${quotedReason(reason)}`;
    if (unresolvable) this.unresolvableEntries.push(entry);
    else this.failedEntries.push(entry);
  }

  get Nodes(): WireNodeList | null {
    if (this.wires === undefined) return null;
    return (this.built.Nodes ??= { ...this.nodeList, items: this.passed.map((i) => this.wires![i]!) });
  }

  get NodeNames(): string[] | null {
    if (this.wires !== undefined) return null;
    return (this.built.NodeNames ??= this.passed.map((i) => this.names[i]!));
  }

  /** Parsed back from the wire fragments: a node named `__proto__` becomes an own key, as any JSON decoder makes it. */
  get FailedNodes(): FailedNodesMap {
    return (this.built.FailedNodes ??= JSON.parse(`{${this.failedEntries.join(',')}}`) as FailedNodesMap);
  }

  get FailedAndUnresolvableNodes(): FailedNodesMap {
    return (this.built.FailedAndUnresolvableNodes ??= JSON.parse(`{${this.unresolvableEntries.join(',')}}`) as FailedNodesMap);
  }

  get Error(): string {
    return '';
  }

  /** A plain copy of the fields (what a decoder of the reply would see). */
  toResult(): ExtenderFilterResult {
    return { Nodes: this.Nodes, NodeNames: this.NodeNames, FailedNodes: this.FailedNodes, FailedAndUnresolvableNodes: this.FailedAndUnresolvableNodes, Error: '' };
  }
}
