/**
 * A prioritize answer as the scan builds it: per candidate its name, already encoded as a JSON string (a ledger
 * node's is encoded once, when the ledger first sees the node), and its score. Encoding is then concatenation;
 * quoting every host name on each call cost more than scoring the nodes. `toList()` gives the plain
 * HostPriorityList (shadow mode, tests).
 */
import type { HostPriorityList } from './types.js';

const quote = JSON.stringify as (value: string) => string;

export class PriorityReply {
  /** Host names as JSON strings, in request order. */
  readonly quotedHosts: string[] = [];
  /** Scores, parallel to `quotedHosts`. */
  readonly scores: number[] = [];
  private readonly hosts: string[] = [];

  /** `quotedName`: the name as a JSON string when known (a ledger node's), else it is encoded here. */
  add(name: string, quotedName: string | undefined, score: number): void {
    this.hosts.push(name);
    this.quotedHosts.push(quotedName ?? quote(name));
    this.scores.push(score);
  }

  toList(): HostPriorityList {
    return this.hosts.map((Host, i) => ({ Host, Score: this.scores[i]! }));
  }
}
