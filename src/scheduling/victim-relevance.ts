/**
 * Can kube-ledger prove that a proposed victim does not matter to any in-tree filter for this preemptor? Upstream's
 * SelectVictimsOnNode reprieves a victim only when *all* filters still pass without evicting it; kube-ledger sees
 * only resources, so it may reprieve a victim only when the other filters provably do not care about that pod:
 *
 * - NodePorts: the victim binds no host port the preemptor wants (same port and protocol; host IPs are ignored,
 *   which only ever keeps more victims).
 * - InterPodAffinity: no required affinity or anti-affinity term of the preemptor selects the victim, and no
 *   required anti-affinity term of the victim selects the preemptor (upstream checks existing pods' terms too).
 * - PodTopologySpread: no DoNotSchedule constraint of the preemptor counts the victim.
 * - Volume filters (VolumeRestrictions, NodeVolumeLimits, ...): not both of them use storage volumes.
 * - DynamicResources: not both of them use resource claims (or, for the preemptor, extended resources DRA may serve).
 *
 * Whatever cannot be decided counts as "may matter": a namespaceSelector with labels (namespaces are not watched),
 * an invalid selector, a missing whenUnsatisfiable. matchLabelKeys / mismatchLabelKeys are ignored: they only narrow
 * a selector, so ignoring them can only keep a victim. Cluster-wide default spread constraints configured in the
 * scheduler with DoNotSchedule are invisible to an extender and are not covered.
 */
import type { Container, ContainerPort, LabelSelector, PodAffinityTerm, PodObject, TopologySpreadConstraint } from '../ledger/objects.js';
import { ruleFactsOfObject, type PodRuleFacts } from '../ledger/pod-facts.js';
import { storageSourceOf } from '../ledger/storage-volumes.js';
import { isExtendedResourceName } from '../ledger/resources.js';
import { parseSelector, selects, type Labels, type ParsedSelector } from './label-selector.js';

/** The filter a kept victim may matter to: a stable code for metrics, the message for logs and outcomes. */
export type OtherFilter = 'host_port' | 'pod_affinity' | 'pod_anti_affinity' | 'victim_anti_affinity' | 'topology_spread' | 'storage' | 'claims';

export interface VictimHold {
  filter: OtherFilter;
  reason: string;
}

/** A reason the victim may matter to another filter, or undefined when it provably does not. */
export function whyVictimMayMatter(preemptor: PodObject, victim: PodObject): string | undefined {
  return victimHold(preemptor, victim)?.reason;
}

/** As whyVictimMayMatter, with the filter's code. */
export function victimHold(preemptor: PodObject, victim: PodObject): VictimHold | undefined {
  return holdFor(preemptorRules(preemptor), ruleFactsOfObject(victim));
}

/** The preemptor's side of every rule, settled once for all the victims of a call. */
export interface PreemptorRules {
  readonly facts: PodRuleFacts;
  /** The host ports it wants, in its containers' order. */
  readonly wantedPorts: readonly ContainerPort[];
  /** Its required podAffinity terms, then its podAntiAffinity terms. */
  readonly terms: readonly PreemptorTerm[];
  /** Its DoNotSchedule (or unset) topology spread constraints. */
  readonly spreads: readonly PreemptorSpread[];
  readonly usesStorage: boolean;
  /** Why a victim holding claims may matter; undefined when the preemptor cannot compete for what claims hold. */
  readonly claimsReason: string | undefined;
}

interface PreemptorTerm {
  which: 'podAffinity' | 'podAntiAffinity';
  term: PodAffinityTerm;
  selector: ParsedSelector;
}

interface PreemptorSpread {
  topologyKey: string;
  selector: ParsedSelector;
}

export function preemptorRules(preemptor: PodObject): PreemptorRules {
  const facts = ruleFactsOfObject(preemptor);
  const terms = (['podAffinity', 'podAntiAffinity'] as const).flatMap((which) =>
    requiredTerms(facts, which).map((term) => ({ which, term, selector: parseSelector(term?.labelSelector) })));
  const constraints: TopologySpreadConstraint[] = arrayOr(facts.spec.topologySpreadConstraints);
  const spreads = constraints.filter((c) => c?.whenUnsatisfiable !== 'ScheduleAnyway')
    .map((c) => ({ topologyKey: c?.topologyKey ?? '?', selector: parseSelector(c?.labelSelector) }));
  return { facts, wantedPorts: hostPorts(facts), terms, spreads, usesStorage: storageVolumes(facts).length > 0, claimsReason: claimsReasonOf(preemptor) };
}

/** Why the victim may matter to another filter for this preemptor, or undefined when it provably does not. */
export function holdFor(rules: PreemptorRules, victim: PodRuleFacts): VictimHold | undefined {
  return (
    sharedHostPort(rules, victim) ??
    selectedByPreemptorTerms(rules, victim) ??
    victimAntiAffinityAgainst(victim, rules.facts) ??
    countedBySpread(rules, victim) ??
    bothUseStorage(rules, victim) ??
    bothUseClaims(rules, victim)
  );
}

function hostPorts(pod: PodRuleFacts): ContainerPort[] {
  const containers: Container[] = [...(arrayOr(pod.spec.containers)), ...(arrayOr(pod.spec.initContainers))];
  return containers.flatMap((c) => arrayOr(c?.ports)).filter((p) => typeof p?.hostPort === 'number' && p.hostPort > 0);
}

function sharedHostPort(rules: PreemptorRules, victim: PodRuleFacts): VictimHold | undefined {
  if (rules.wantedPorts.length === 0) return undefined;
  const held = new Set(hostPorts(victim).map(portKey));
  const shared = rules.wantedPorts.find((p) => held.has(portKey(p)));
  return shared ? { filter: 'host_port', reason: `holds host port ${portKey(shared)} the preemptor wants (NodePorts)` } : undefined;
}

function portKey(port: ContainerPort): string {
  return `${port.hostPort}/${port.protocol || 'TCP'}`;
}

function requiredTerms(pod: PodRuleFacts, which: 'podAffinity' | 'podAntiAffinity'): PodAffinityTerm[] {
  return arrayOr(pod.spec.affinity?.[which]?.requiredDuringSchedulingIgnoredDuringExecution);
}

function selectedByPreemptorTerms(rules: PreemptorRules, victim: PodRuleFacts): VictimHold | undefined {
  for (const { which, term, selector } of rules.terms) {
    if (termMaySelect(term, selector, rules.facts.namespace, victim)) {
      return {
        filter: which === 'podAffinity' ? 'pod_affinity' : 'pod_anti_affinity',
        reason: `selected by the preemptor's required ${which} term (InterPodAffinity)`,
      };
    }
  }
  return undefined;
}

function victimAntiAffinityAgainst(victim: PodRuleFacts, preemptor: PodRuleFacts): VictimHold | undefined {
  for (const term of requiredTerms(victim, 'podAntiAffinity')) {
    if (termMaySelect(term, parseSelector(term?.labelSelector), victim.namespace, preemptor)) {
      return { filter: 'victim_anti_affinity', reason: 'its required podAntiAffinity term selects the preemptor (InterPodAffinity)' };
    }
  }
  return undefined;
}

/** Upstream's AffinityTerm.Matches, with "don't know" answered as "matches"; `selector`: the term's, parsed. */
function termMaySelect(term: PodAffinityTerm, selector: ParsedSelector, ownerNamespace: string, target: PodRuleFacts): boolean {
  if (!termCoversNamespace(term, ownerNamespace, target.namespace)) return false;
  return selects(selector, labelsOf(target)) !== false;
}

/** GetNamespacesFromPodAffinityTerm plus namespaceSelector: a non-nil namespaceSelector may cover any namespace. */
function termCoversNamespace(term: PodAffinityTerm, ownerNamespace: string, targetNamespace: string): boolean {
  const namespaceSelector: LabelSelector | null | undefined = term?.namespaceSelector;
  const namespaces = arrayOr(term?.namespaces);
  if (namespaceSelector !== undefined && namespaceSelector !== null) return true;
  return namespaces.length === 0 ? ownerNamespace === targetNamespace : namespaces.includes(targetNamespace);
}

function countedBySpread(rules: PreemptorRules, victim: PodRuleFacts): VictimHold | undefined {
  if (rules.spreads.length === 0 || rules.facts.namespace !== victim.namespace) return undefined;
  for (const { topologyKey, selector } of rules.spreads) {
    if (selects(selector, labelsOf(victim)) !== false) {
      return { filter: 'topology_spread', reason: `counted by the preemptor's topology spread constraint on ${topologyKey} (PodTopologySpread)` };
    }
  }
  return undefined;
}

function storageVolumes(pod: PodRuleFacts): string[] {
  return arrayOr(pod.spec.volumes).flatMap((v) => (typeof v === 'object' && v !== null ? (storageSourceOf(v) ?? []) : []));
}

function bothUseStorage(rules: PreemptorRules, victim: PodRuleFacts): VictimHold | undefined {
  if (!rules.usesStorage) return undefined;
  const held = storageVolumes(victim);
  return held.length > 0 ? { filter: 'storage', reason: `both use storage volumes (${held[0]}): volume filters may need it gone` } : undefined;
}

function bothUseClaims(rules: PreemptorRules, victim: PodRuleFacts): VictimHold | undefined {
  if (rules.claimsReason === undefined) return undefined;
  const victimClaims = arrayOr(victim.spec.resourceClaims).length > 0 || hasImplicitExtendedResourceClaim(victim);
  return victimClaims ? { filter: 'claims', reason: rules.claimsReason } : undefined;
}

function claimsReasonOf(preemptor: PodObject): string | undefined {
  if (arrayOr(preemptor.spec?.resourceClaims).length > 0) return 'both use resource claims (DynamicResources)';
  if (requestsExtendedResources(preemptor)) return 'holds resource claims and the preemptor requests extended resources DRA may serve';
  return undefined;
}

function hasImplicitExtendedResourceClaim(pod: PodRuleFacts): boolean {
  const status = pod.status.extendedResourceClaimStatus;
  return status !== undefined && status !== null;
}

/** Extended resources DRA may serve (whether a DeviceClass serves them here or not: the safe side). */
function requestsExtendedResources(pod: PodObject): boolean {
  const containers = [...arrayOr(pod.spec?.containers), ...arrayOr(pod.spec?.initContainers)];
  return containers.some((c) => [...Object.keys(c?.resources?.requests ?? {}), ...Object.keys(c?.resources?.limits ?? {})].some(isExtendedResourceName));
}

function labelsOf(pod: PodRuleFacts): Labels {
  return pod.labels;
}

function arrayOr<T>(value: T[] | undefined | null): T[] {
  return Array.isArray(value) ? value : [];
}
