/**
 * What the nominator should do for one pod, decided from one object version and one ledger view, with no I/O:
 * the controller executes the plan. Ownership rules (the safe contract for an external nominator):
 * - write only when status.nominatedNodeName is empty or still holds kube-ledger's own decision (record annotation);
 * - a value set by anyone else makes kube-ledger stand back for that pod (no write war);
 * - our record with an empty field means someone cleared our nomination: stand back too (once per decision);
 * - an owned decision is withdrawn when it expires, its node disappears or stops fitting, the pod's spec or
 *   priority changes, or the pod leaves the canary scope; when the node's hints no longer all fit, only the excess
 *   is withdrawn (node-hints.ts);
 * - after kube-ledger withdrew a decision (its tombstone in the record) the pod waits out the fallback cooldown the
 *   tombstone gives before it is nominated again — derived from the pod, so it survives a restart.
 * Fits and reservations are read through the nominator's overlay (nomination-book.ts) when one is given.
 */
import type { ClusterLedger } from '../ledger/cluster-ledger.js';
import { CONFIG_DEFAULTS } from '../config/defaults.js';
import { isTerminalPhase, type PodEntry } from '../ledger/pod-entry.js';
import type { SchedulingOptions } from '../scheduling/options.js';
import { invalidation, recommendNode, type NominationOverlay } from '../scheduling/recommend.js';
import { expiresAtMs, fallbackCooldownEndMs, hasDecisionAnnotation, isTombstone, parseDecisionRecord, podSpecHash, type DecisionRecord } from './decision-record.js';
import { nodeIneligibilityFor, podIneligibility } from './eligibility.js';

export interface NominationSettings {
  enabled: boolean;
  /** Pods of other schedulers are never nominated (default: default-scheduler). */
  schedulerNames?: readonly string[];
  /** Canary allowlist; empty = no namespace is in scope. */
  namespaces: readonly string[];
  /** PriorityClass names in scope; empty = any. */
  priorityClasses: readonly string[];
  ttlSeconds: number;
}

export type WithdrawReason = 'expired' | 'node_gone' | 'node_ineligible' | 'no_longer_fits' | 'excess' | 'spec_changed' | 'out_of_scope';

/** A per-pod pause: `token` names the situation it was set for (a foreign value or one of our decision IDs). */
export interface Cooldown {
  untilMs: number;
  token: string;
  reason: string;
}

export interface FallbackCooldown {
  baseMs: number;
  maxMs: number;
}

/** 30 s after a first fallback, doubling for each further one, at most 5 min (the stand-back pause). */
export const DEFAULT_FALLBACK_COOLDOWN: Readonly<FallbackCooldown> = { baseMs: 30_000, maxMs: 300_000 };

export type Plan =
  | { kind: 'retire'; outcome: 'bound' | 'finished' }
  | { kind: 'idle'; reason: string; recheckAfterMs?: number; owned?: DecisionRecord }
  | { kind: 'stand_back'; token: string; reason: string }
  | { kind: 'nominate'; node: string; reason: string; specHash: string; fallbacks: number }
  | { kind: 'withdraw'; reason: WithdrawReason; record: DecisionRecord; detail: string };

export interface PlanInput {
  pod: PodEntry;
  ledger: ClusterLedger;
  settings: NominationSettings;
  options: SchedulingOptions;
  nowMs: number;
  /** The in-memory pause set when kube-ledger stood back from the pod. */
  cooldown: Cooldown | undefined;
  /** The fallback cooldown after a withdrawal: `baseMs`, doubling with each earlier fallback, at most `maxMs`. */
  fallbackCooldown?: FallbackCooldown;
  /** The nominator's view of nominations (its own decisions not yet in the cache); the ledger's alone without it. */
  overlay?: NominationOverlay;
}

export function inScope(pod: PodEntry, settings: NominationSettings): boolean {
  if (!settings.namespaces.includes(pod.namespace)) return false;
  if (settings.priorityClasses.length === 0) return true;
  return settings.priorityClasses.includes(pod.object.spec?.priorityClassName ?? '');
}

/** Pending pods in scope, and pending pods with our record (which may need clearing even out of scope). */
export function isCandidate(pod: PodEntry, settings: NominationSettings): boolean {
  if (pod.nodeName !== '' || isTerminalPhase(pod.phase) || pod.terminating) return false;
  return inScope(pod, settings) || hasDecisionAnnotation(pod.object);
}

/** The order pods are planned in, kube-scheduler's PrioritySort: higher priority first, then older, then by key. */
export function bySchedulingOrder(a: PodEntry, b: PodEntry): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  const ac = a.object.metadata.creationTimestamp ?? '';
  const bc = b.object.metadata.creationTimestamp ?? '';
  if (ac !== bc) return ac < bc ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export function planReconcile(input: PlanInput): Plan {
  const { pod } = input;
  if (pod.nodeName !== '') return { kind: 'retire', outcome: 'bound' };
  if (isTerminalPhase(pod.phase) || pod.terminating) return { kind: 'retire', outcome: 'finished' };
  const record = parseDecisionRecord(pod.object);
  const live = record && !isTombstone(record) ? record : undefined;
  if (live && pod.nominatedNodeName === live.node) return planOwned(input, live);
  return standBack(input, live) ?? planUnowned(input, record);
}

/** Someone else set the pod's nominated node, or cleared kube-ledger's live decision: kube-ledger stands back. */
function standBack(input: PlanInput, live: DecisionRecord | undefined): Plan | undefined {
  const current = input.pod.nominatedNodeName;
  if (current !== '') return { kind: 'stand_back', token: `foreign:${current}`, reason: `status.nominatedNodeName ${current} was set by someone else` };
  if (live && input.cooldown?.token !== live.decisionId) {
    return { kind: 'stand_back', token: live.decisionId, reason: `decision ${live.decisionId} was cleared by someone else` };
  }
  return undefined;
}

/** No nomination on the pod: wait out a pause or a fallback cooldown, else plan a new nomination. */
function planUnowned(input: PlanInput, record: DecisionRecord | undefined): Plan {
  const pause = pauseOf(input, record && isTombstone(record) ? record : undefined);
  if (pause && input.nowMs < pause.untilMs) return { kind: 'idle', reason: pause.reason, recheckAfterMs: pause.untilMs - input.nowMs };
  return planNomination(input, record?.fallbacks ?? 0);
}

/** The longer of the stand-back pause and the fallback cooldown a tombstone gives. */
function pauseOf(input: PlanInput, tombstone: DecisionRecord | undefined): { untilMs: number; reason: string } | undefined {
  const { cooldown, fallbackCooldown = DEFAULT_FALLBACK_COOLDOWN } = input;
  const fallback = tombstone
    ? { untilMs: fallbackCooldownEndMs(tombstone, fallbackCooldown.baseMs, fallbackCooldown.maxMs), reason: `fell back: ${tombstone.withdrawReason ?? 'withdrawn'}` }
    : undefined;
  if (!cooldown) return fallback;
  return !fallback || cooldown.untilMs >= fallback.untilMs ? cooldown : fallback;
}

function planOwned(input: PlanInput, record: DecisionRecord): Plan {
  const { pod, ledger, settings, options, nowMs } = input;
  const withdraw = (reason: WithdrawReason, detail: string): Plan => ({ kind: 'withdraw', reason, record, detail });
  if (!inScope(pod, settings)) return withdraw('out_of_scope', 'pod is no longer in the nomination scope');
  const ineligible = podIneligibility(pod.object, settings.schedulerNames ?? CONFIG_DEFAULTS.nomination.schedulerNames);
  if (ineligible) return withdraw('out_of_scope', ineligible);
  const expiresAt = expiresAtMs(record);
  if (nowMs >= expiresAt) return withdraw('expired', `TTL of ${record.ttlSeconds}s elapsed`);
  if (record.specHash !== podSpecHash(pod.object)) return withdraw('spec_changed', 'pod spec or priority changed');
  const invalid = invalidation(ledger, pod, record.node, options, (node) => nodeIneligibilityFor(pod.object, node), input.overlay);
  if (invalid) return withdraw(invalid as WithdrawReason, describeInvalidation(invalid, record.node));
  return { kind: 'idle', reason: 'own nomination still valid', recheckAfterMs: expiresAt - nowMs, owned: record };
}

function planNomination(input: PlanInput, fallbacks: number): Plan {
  const { pod, ledger, settings, options } = input;
  if (!inScope(pod, settings)) return { kind: 'idle', reason: 'out of scope' };
  const ineligible = podIneligibility(pod.object, settings.schedulerNames ?? CONFIG_DEFAULTS.nomination.schedulerNames);
  if (ineligible) return { kind: 'idle', reason: ineligible };
  const recommendation = recommendNode(ledger, pod, options, (node) => nodeIneligibilityFor(pod.object, node), input.overlay);
  if (recommendation.node === undefined) return { kind: 'idle', reason: recommendation.reason };
  return { kind: 'nominate', node: recommendation.node, reason: recommendation.reason, specHash: podSpecHash(pod.object), fallbacks };
}

function describeInvalidation(reason: string, node: string): string {
  if (reason === 'node_gone') return `node ${node} no longer exists`;
  if (reason === 'node_ineligible') return `node ${node} is cordoned, tainted without toleration, or excluded by the pod's selector or affinity`;
  if (reason === 'excess') return `node ${node} cannot hold every hint: those of higher priority, or older, keep its room`;
  return `pod no longer fits node ${node} by the ledger`;
}
