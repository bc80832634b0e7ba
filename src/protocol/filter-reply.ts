/**
 * A filter answer as the scan builds it, kept as the JSON fragments the reply is made of: a known node's name arrives
 * already encoded as a JSON string (the cycle cache keeps it per node), a reason is encoded once per run of nodes
 * failing alike, and each failing node is one `"name":"reason"` fragment, so encoding the reply is joining fragments
 * (a map-shaped FailedNodes cost more than the whole fit scan).
 *
 * It reads as an ExtenderFilterResult for whoever inspects it (shadow mode, logs, tests): the fields are built on
 * first read, from the same fragments the wire gets, so what is read is what is sent.
 */
import type { ExtenderFilterResult, FailedNodesMap, WireNodeList, WireObject } from './types.js';

const quote = JSON.stringify as (value: string) => string;

/**
 * A reason as a JSON string. The scan quotes each run of equal reasons once (scheduling/filter.ts), so a call quotes
 * a handful of strings and nothing needs remembering across calls.
 */
export function quotedReason(reason: string): string {
  return quote(reason);
}

export class FilterReply implements ExtenderFilterResult {
  /** Indexes (into the request's candidates) of the passing nodes, in request order; `passedCount` of them. */
  private readonly passedIndexes: number[];
  passedCount = 0;
  /** NodeNames mode: the passing names as JSON strings, parallel to the indexes (sized once, trimmed when encoded). */
  private readonly quotedPassed: string[];
  /** `"name":"reason"` per failing node, in request order. */
  readonly failedEntries: string[] = [];
  readonly unresolvableEntries: string[] = [];
  private joinedPassed: string | undefined;
  private built: Partial<ExtenderFilterResult> = {};

  /**
   * `names` are the candidates as the request named them; in Nodes mode `wires[i]` is the request's Node object for
   * `names[i]` and `nodeList` the request's NodeList (its other fields are echoed). The passing columns are sized
   * for every candidate once, rather than grown push by push.
   */
  constructor(
    readonly names: readonly string[],
    readonly wires?: readonly WireObject[],
    readonly nodeList?: WireNodeList | null,
  ) {
    this.passedIndexes = new Array<number>(names.length);
    this.quotedPassed = wires === undefined ? new Array<string>(names.length) : [];
  }

  get namesMode(): boolean {
    return this.wires === undefined;
  }

  /** The passing names as JSON strings, in request order (NodeNames mode). */
  get passedQuoted(): readonly string[] {
    if (this.quotedPassed.length !== this.passedCount) this.quotedPassed.length = this.passedCount;
    return this.quotedPassed;
  }

  /**
   * The passing names as JSON strings joined by commas: the reply's NodeNames list without its brackets, made once
   * (the encoder writes it; a prioritize that follows with these names is recognised by it, extender-args-text.ts).
   */
  get passedJoined(): string {
    return (this.joinedPassed ??= this.passedQuoted.join(','));
  }

  /** The index (into the request's candidates) of the `at`-th passing node. */
  passedIndexAt(at: number): number {
    return this.passedIndexes[at]!;
  }

  /** `quotedName`: the name as a JSON string when known (a ledger node's), else it is encoded here. */
  pass(index: number, quotedName: string | undefined): void {
    const at = this.passedCount++;
    this.passedIndexes[at] = index;
    if (this.wires === undefined) this.quotedPassed[at] = quotedName ?? quote(this.names[index]!);
  }

  /** A failing node, its reason already a JSON string (`quotedReason`): the scan encodes a run of equal reasons once. */
  failQuoted(index: number, quotedName: string | undefined, quotedReasonText: string, unresolvable: boolean): void {
    const entry = `${quotedName ?? quote(this.names[index]!)}:${quotedReasonText}`;
    if (unresolvable) this.unresolvableEntries.push(entry);
    else this.failedEntries.push(entry);
  }

  private passedMap<T>(of: (index: number) => T): T[] {
    const out: T[] = [];
    for (let at = 0; at < this.passedCount; at++) out.push(of(this.passedIndexes[at]!));
    return out;
  }

  get Nodes(): WireNodeList | null {
    if (this.wires === undefined) return null;
    return (this.built.Nodes ??= { ...this.nodeList, items: this.passedMap((i) => this.wires![i]!) });
  }

  get NodeNames(): string[] | null {
    if (this.wires !== undefined) return null;
    return (this.built.NodeNames ??= this.passedMap((i) => this.names[i]!));
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
