/**
 * Everything the verbs remember between calls, in one object the composition root builds and hands to filter,
 * prioritize and preempt (and the HTTP route, for the candidate lists it decodes). Nothing else in protocol/,
 * scheduling/ or ledger/ keeps request state: the ledger is a store read through its views, and the memos here only
 * make answers cheaper, never different — with `enabled: false` every call starts from an empty cache, and the
 * property tests compare both modes byte for byte (test/scheduling/cycle-cache.property.test.ts).
 *
 * One key decides what is still valid, read once per call by `begin`: the ledger (another one: everything goes), the
 * node table's membership (which node each slot holds: slot texts and filter survivors go), the DRA accounting's
 * `usedEpoch` (DRA rows go) and `assessmentEpoch` (remembered verdicts go). Per-slot entries additionally carry the
 * slot's version (the node's generation), so one node's change invalidates only that node's rows and verdicts.
 *
 * | memory                       | kept by               | valid while                                   |
 * |------------------------------|-----------------------|-----------------------------------------------|
 * | candidate lists (body text)  | ExtenderArgsReader    | the text matches exactly                      |
 * | incoming pod, compiled demand| here (last one)       | the same wire object / the same pod entry     |
 * | candidate order hints        | CandidateOrder        | hints are checked against the table           |
 * | names, quoted names, entries | SlotFragments         | membership                                    |
 * | filter survivors             | FilterSurvivors       | membership, the same name strings             |
 * | DRA use rows                 | DraUsedRows           | usedEpoch, slot version                       |
 * | verdicts and scores          | VerdictMemo           | assessmentEpoch, node generation, DRA row     |
 * | compiled scoring weights     | here (last one)       | the same options.scoring object               |
 * | per-call dedupe scratch      | SlotStamps            | one stamp per call                            |
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import type { PodEntry } from '../ledger/pod-entry.js';
import { ExtenderArgsReader } from '../protocol/extender-args-text.js';
import type { FilterReply } from '../protocol/filter-reply.js';
import type { WireObject } from '../protocol/types.js';
import { CallDedupe, SlotStamps } from './call-dedupe.js';
import { CandidateOrder } from './candidate-order.js';
import { DraUsedRows } from './dra-used-rows.js';
import { FilterSurvivors } from './filter-survivors.js';
import { compileDemand, type CompiledDemand } from './fit-kernel.js';
import type { ResourceIds } from '../ledger/numeric-amounts.js';
import { incomingPodFromWire } from './incoming-pod.js';
import type { SchedulingOptions } from './options.js';
import { compileWeights, type CompiledWeight } from './score-kernel.js';
import { SlotFragments } from './slot-fragments.js';
import { VerdictMemo } from './verdict-memo.js';

export interface CycleCacheOptions {
  /** false: every call starts from an empty cache (`scheduling.cycleCache.enabled`). */
  enabled: boolean;
}

/** The scoring configuration as the kernel reads it, and the text that tells it apart in memo keys. */
export interface CompiledScoring {
  weights: CompiledWeight[];
  purpose: string;
}

interface CycleKey {
  ledger: ClusterLedger;
  membership: number;
  usedEpoch: number;
  assessmentEpoch: number;
}

export class CycleCache {
  readonly enabled: boolean;
  /** The candidate lists the HTTP route decodes with (it remembers nothing when the cache is disabled). */
  readonly argsReader: ExtenderArgsReader;
  private key: CycleKey | undefined;
  private ledgerStores: LedgerStores | undefined;
  private lastWire: WireObject | undefined;
  private lastPod: PodEntry | undefined;
  private lastDemand: CompiledDemand | undefined;
  private scoring: { of: SchedulingOptions['scoring']; resources: ResourceIds; compiled: CompiledScoring } | undefined;

  constructor(options: CycleCacheOptions = { enabled: true }) {
    this.enabled = options.enabled;
    this.argsReader = new ExtenderArgsReader(options.enabled);
  }

  /** Brings every store up to the ledger's current key: once at the start of each verb call, before any read. */
  begin(ledger: ClusterLedger): void {
    const table = ledger.nodeTable();
    const dra = ledger.draAccounting();
    const next: CycleKey = { ledger, membership: table.membership, usedEpoch: dra.usedEpoch(), assessmentEpoch: dra.assessmentEpoch() };
    const key = this.key;
    const stores = this.ledgerStores;
    if (!this.enabled || key === undefined || stores === undefined || key.ledger !== ledger) this.startOver(ledger);
    else {
      if (key.membership !== next.membership) stores.membershipMoved(ledger);
      if (key.usedEpoch !== next.usedEpoch) stores.rows.clear();
      if (key.assessmentEpoch !== next.assessmentEpoch) stores.verdicts.clear();
    }
    this.key = next;
  }

  private startOver(ledger: ClusterLedger): void {
    this.ledgerStores = new LedgerStores(ledger);
    this.lastWire = undefined;
    this.lastPod = undefined;
    this.lastDemand = undefined;
    this.scoring = undefined;
  }

  private get stores(): LedgerStores {
    if (this.ledgerStores === undefined) throw new Error('CycleCache.begin was not called');
    return this.ledgerStores;
  }

  /** The request's pod; the same wire object again (a prioritize handed its filter's Pod) is the same entry. */
  incomingPod(wire: WireObject | null): PodEntry {
    if (wire !== null && wire === this.lastWire && this.lastPod !== undefined) return this.lastPod;
    const pod = incomingPodFromWire(wire, '$.Pod', this.key?.ledger.quantityMemo());
    this.lastWire = wire ?? undefined;
    this.lastPod = pod;
    return pod;
  }

  /** The pod's compiled demand; the same entry again is the same demand (its verdicts by failure mask included). */
  demandOf(pod: PodEntry, resources: ResourceIds): CompiledDemand {
    if (this.lastDemand?.pod === pod && this.lastDemand.resources === resources) return this.lastDemand;
    this.lastDemand = compileDemand(pod, resources);
    return this.lastDemand;
  }

  /** The scoring configuration compiled, kept while `options.scoring` is the same object. */
  scoringOf(scoring: SchedulingOptions['scoring'], resources: ResourceIds): CompiledScoring {
    if (this.scoring?.of === scoring && this.scoring.resources === resources) return this.scoring.compiled;
    let purpose = `score:${scoring.strategy}:${scoring.draAware}`;
    for (const [resource, weight] of scoring.weights) purpose += `,${resource}=${weight}`;
    const compiled = { weights: compileWeights(scoring.weights, resources), purpose };
    this.scoring = { of: scoring, resources, compiled };
    return compiled;
  }

  /** The slots of a candidate list (-1: no known node); `learnOrder` as CandidateOrder says. */
  slotsOf(names: readonly string[], learnOrder: boolean): readonly number[] {
    const stores = this.stores;
    return stores.order.slotsOf(names, stores.fragments, learnOrder);
  }

  /** The slots of the last filter's survivors when `names` are exactly them (see FilterSurvivors). */
  survivorSlots(names: readonly string[]): readonly number[] | undefined {
    return this.stores.survivors.slotsOf(names);
  }

  rememberSurvivors(reply: FilterReply, slots: readonly number[]): void {
    this.stores.survivors.remember(reply, slots);
  }

  /** Names, quoted names and prioritize entries by slot. */
  get fragments(): SlotFragments {
    return this.stores.fragments;
  }

  /** Each node's DRA use rows, for the ledger of this call. */
  draRows(): DraUsedRows {
    return this.stores.rows;
  }

  get verdicts(): VerdictMemo {
    return this.stores.verdicts;
  }

  /** A dedupe for one call, on the cache's scratch. */
  dedupe(): CallDedupe {
    return new CallDedupe(this.stores.stamps);
  }

  /** Names that no order hint resolved and were looked up by name (tests, diagnostics). */
  get nameLookups(): number {
    return this.ledgerStores?.order.lookups ?? 0;
  }
}

/** The stores that belong to one ledger. */
class LedgerStores {
  readonly order = new CandidateOrder();
  readonly survivors = new FilterSurvivors();
  readonly rows: DraUsedRows;
  readonly verdicts = new VerdictMemo();
  readonly stamps = new SlotStamps();
  fragments: SlotFragments;

  constructor(ledger: ClusterLedger) {
    this.rows = new DraUsedRows(ledger.draAccounting(), ledger.nodeTable());
    this.fragments = new SlotFragments(ledger);
  }

  membershipMoved(ledger: ClusterLedger): void {
    this.fragments = new SlotFragments(ledger);
    this.survivors.clear();
  }
}
