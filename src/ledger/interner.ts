/**
 * The ledger's shared values, one table each, owned by the ledger instance (never by a module): names many pods and
 * nodes repeat (namespaces, node names, phases, node label values), the hash-consed shapes pods and nodes share
 * (requests, label sets, the parts of bound pods preemption reads, node allocatables), and the parse memo of quantity
 * texts. Every table is counted or bounded: what no object holds any more is let go.
 */
import { ClearingMemo } from './clearing-memo.js';
import { HashConsTable, type Interned } from './hash-cons.js';
import { NameTable, NamespaceTable } from './name-table.js';
import { hashText } from './packed-fields.js';
import { BoundPodParts, LabelSet, RequestShape, sameLabels, sameParts, sameRequests } from './pod-shapes.js';

/** Quantity texts remembered with their parsed amounts (pods repeat the same few: "100m", "128Mi"). */
const QUANTITY_TEXTS_REMEMBERED = 4096;

/** A node's allocatable, shared by the nodes of one instance type. */
export class AmountsShape implements Interned {
  refs = 0;
  id = -1;
  readonly hash: number;
  private readonly text: string;

  constructor(readonly amounts: ReadonlyMap<string, bigint>) {
    let text = '';
    for (const [name, amount] of amounts) text += `${name}=${amount}\n`;
    this.text = text;
    this.hash = hashText(text);
  }

  static same(a: AmountsShape, b: AmountsShape): boolean {
    return a.text === b.text;
  }
}

export class LedgerInterner {
  readonly namespaces = new NamespaceTable();
  readonly nodeNames = new NameTable();
  readonly phases = new NameTable();
  readonly labelValues = new NameTable();
  readonly requestShapes = new HashConsTable<RequestShape>(sameRequests);
  readonly labelSets = new HashConsTable<LabelSet>(sameLabels);
  readonly podParts = new HashConsTable<BoundPodParts>(sameParts);
  readonly allocatables = new HashConsTable<AmountsShape>(AmountsShape.same);
  /** Quantity text → exact amount in nano units (pod-requests.ts). */
  readonly quantityNanos = new ClearingMemo<string, bigint>(QUANTITY_TEXTS_REMEMBERED);

  /**
   * Labels whose values are the table's shared strings (a node's labels repeat zone, region and instance type by the
   * thousand); release them with `releaseLabels`.
   */
  internLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(labels)) {
      out[key] = typeof value === 'string' ? this.labelValues.name(this.labelValues.acquire(value)) : value;
    }
    return out;
  }

  releaseLabels(labels: Readonly<Record<string, string>>): void {
    for (const value of Object.values(labels)) {
      const id = this.labelValues.idOf(value);
      if (id !== undefined) this.labelValues.release(id);
    }
  }
}
