/**
 * When may preemption reprieve a victim the scheduler proposed? Only when no other in-tree filter can care about it.
 * Each row names the upstream rule it mirrors (kubernetes/kubernetes pkg/scheduler/framework/plugins):
 * nodeports `fitsPorts` / `HostPortInfo.CheckConflict`, interpodaffinity `satisfyPodAffinity`,
 * `satisfyPodAntiAffinity`, `satisfyExistingPodsAntiAffinity` with `AffinityTerm.Matches` and
 * `GetNamespacesFromPodAffinityTerm`, podtopologyspread `countPodsMatchSelector` (same namespace, DoNotSchedule only),
 * apimachinery `LabelSelectorAsSelector` (nil selects nothing, empty everything), volumerestrictions /
 * nodevolumelimits (any storage volume may count), dynamicresources (claims).
 */
import assert from 'node:assert/strict';
import type { LabelSelector, PodAffinityTerm, PodObject } from '../../src/ledger/objects.js';
import { computeRequests, type PodEntry } from '../../src/ledger/pod-entry.js';
import { podRuleFacts } from '../../src/ledger/pod-facts.js';
import { PodStore } from '../../src/ledger/pod-store.js';
import { parseSelector, selects } from '../../src/scheduling/label-selector.js';
import { holdFor, preemptorRules, victimHold, whyVictimMayMatter, type OtherFilter } from '../../src/scheduling/victim-relevance.js';
import { pod } from '../support/builders.js';

type Spec = NonNullable<PodObject['spec']>;

function shaped(namespace: string, name: string, o: { labels?: Record<string, string>; spec?: Partial<Spec>; status?: Record<string, unknown> } = {}): PodObject {
  const base = pod(namespace, name, { cpu: '1' });
  return {
    ...base,
    metadata: { ...base.metadata, ...(o.labels ? { labels: o.labels } : {}) },
    spec: { ...base.spec, ...o.spec },
    status: { ...base.status, ...(o.status ?? {}) },
  };
}

const withPorts = (...ports: Array<{ hostPort: number; protocol?: string }>): Partial<Spec> => ({
  containers: [{ name: 'main', resources: { requests: { cpu: '1' } }, ports: ports.map((p) => ({ containerPort: p.hostPort, ...p })) }],
});
const anti = (...terms: PodAffinityTerm[]): Partial<Spec> => ({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } } });
const affine = (...terms: PodAffinityTerm[]): Partial<Spec> => ({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } } });
const term = (labelSelector: LabelSelector | null, extra: Partial<PodAffinityTerm> = {}): PodAffinityTerm => ({ labelSelector, topologyKey: 'kubernetes.io/hostname', ...extra });
const DB = { matchLabels: { app: 'db' } };

interface Row {
  rule: string;
  preemptor: PodObject;
  victim: PodObject;
  /** A fragment of the reason when the victim may matter; undefined when it provably does not. */
  matters: RegExp | undefined;
}

const ROWS: Row[] = [
  { rule: 'a pod sharing nothing with the preemptor is irrelevant', preemptor: shaped('ns', 'p'), victim: shaped('ns', 'v', { labels: { app: 'db' } }), matters: undefined },
  // NodePorts
  { rule: 'NodePorts: the same host port and protocol', preemptor: shaped('ns', 'p', { spec: withPorts({ hostPort: 8080 }) }), victim: shaped('ns', 'v', { spec: withPorts({ hostPort: 8080, protocol: 'TCP' }) }), matters: /host port 8080\/TCP/ },
  { rule: 'NodePorts: the same port under another protocol does not conflict', preemptor: shaped('ns', 'p', { spec: withPorts({ hostPort: 53, protocol: 'UDP' }) }), victim: shaped('ns', 'v', { spec: withPorts({ hostPort: 53 }) }), matters: undefined },
  { rule: 'NodePorts: a victim host port the preemptor does not want', preemptor: shaped('ns', 'p'), victim: shaped('ns', 'v', { spec: withPorts({ hostPort: 9100 }) }), matters: undefined },
  { rule: 'NodePorts: a port without hostPort binds nothing on the node', preemptor: shaped('ns', 'p', { spec: withPorts({ hostPort: 80 }) }), victim: shaped('ns', 'v', { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } }), matters: undefined },
  // InterPodAffinity: the preemptor's required terms
  { rule: 'anti-affinity of the preemptor selects the victim (same namespace by default)', preemptor: shaped('ns', 'p', { spec: anti(term(DB)) }), victim: shaped('ns', 'v', { labels: { app: 'db' } }), matters: /podAntiAffinity/ },
  { rule: 'anti-affinity without namespaces covers only the preemptor namespace', preemptor: shaped('ns', 'p', { spec: anti(term(DB)) }), victim: shaped('other', 'v', { labels: { app: 'db' } }), matters: undefined },
  { rule: 'anti-affinity naming the victim namespace', preemptor: shaped('ns', 'p', { spec: anti(term(DB, { namespaces: ['other'] })) }), victim: shaped('other', 'v', { labels: { app: 'db' } }), matters: /podAntiAffinity/ },
  { rule: 'anti-affinity with an empty namespaceSelector covers every namespace', preemptor: shaped('ns', 'p', { spec: anti(term(DB, { namespaceSelector: {} })) }), victim: shaped('other', 'v', { labels: { app: 'db' } }), matters: /podAntiAffinity/ },
  { rule: 'anti-affinity with a labelled namespaceSelector: namespaces are not watched, so it may match', preemptor: shaped('ns', 'p', { spec: anti(term(DB, { namespaceSelector: { matchLabels: { team: 'a' } } })) }), victim: shaped('other', 'v', { labels: { app: 'db' } }), matters: /podAntiAffinity/ },
  { rule: 'anti-affinity whose selector does not select the victim', preemptor: shaped('ns', 'p', { spec: anti(term(DB)) }), victim: shaped('ns', 'v', { labels: { app: 'web' } }), matters: undefined },
  { rule: 'a nil labelSelector selects nothing', preemptor: shaped('ns', 'p', { spec: anti(term(null)) }), victim: shaped('ns', 'v', { labels: { app: 'db' } }), matters: undefined },
  { rule: 'an empty labelSelector selects every pod', preemptor: shaped('ns', 'p', { spec: anti(term({})) }), victim: shaped('ns', 'v'), matters: /podAntiAffinity/ },
  { rule: 'an invalid selector may select: the victim stays', preemptor: shaped('ns', 'p', { spec: anti(term({ matchExpressions: [{ key: 'app', operator: 'Near' }] })) }), victim: shaped('ns', 'v'), matters: /podAntiAffinity/ },
  { rule: 'NotIn selects a pod without the key', preemptor: shaped('ns', 'p', { spec: anti(term({ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] })) }), victim: shaped('ns', 'v'), matters: /podAntiAffinity/ },
  { rule: 'required affinity of the preemptor selecting the victim', preemptor: shaped('ns', 'p', { spec: affine(term(DB)) }), victim: shaped('ns', 'v', { labels: { app: 'db' } }), matters: /podAffinity/ },
  // InterPodAffinity: existing pods' anti-affinity against the incoming pod
  { rule: "the victim's required anti-affinity selects the preemptor", preemptor: shaped('ns', 'p', { labels: { app: 'db' } }), victim: shaped('ns', 'v', { spec: anti(term(DB)) }), matters: /selects the preemptor/ },
  { rule: "the victim's anti-affinity namespaces are relative to the victim", preemptor: shaped('ns', 'p', { labels: { app: 'db' } }), victim: shaped('other', 'v', { spec: anti(term(DB)) }), matters: undefined },
  { rule: "the victim's required affinity is not a filter on the incoming pod", preemptor: shaped('ns', 'p', { labels: { app: 'db' } }), victim: shaped('ns', 'v', { spec: affine(term(DB)) }), matters: undefined },
  // PodTopologySpread
  {
    rule: 'a DoNotSchedule spread constraint counting the victim',
    preemptor: shaped('ns', 'p', { spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: DB }] } }),
    victim: shaped('ns', 'v', { labels: { app: 'db' } }),
    matters: /topology spread constraint on zone/,
  },
  {
    rule: 'a ScheduleAnyway constraint only scores',
    preemptor: shaped('ns', 'p', { spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: DB }] } }),
    victim: shaped('ns', 'v', { labels: { app: 'db' } }),
    matters: undefined,
  },
  {
    rule: 'spread counts pods of the preemptor namespace only',
    preemptor: shaped('ns', 'p', { spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: DB }] } }),
    victim: shaped('other', 'v', { labels: { app: 'db' } }),
    matters: undefined,
  },
  // Volumes
  {
    rule: 'both use persistent volume claims',
    preemptor: shaped('ns', 'p', { spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'a' } }] } }),
    victim: shaped('ns', 'v', { spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'b' } }] } }),
    matters: /storage volumes \(persistentVolumeClaim\)/,
  },
  {
    rule: 'configuration and scratch volumes concern no filter',
    preemptor: shaped('ns', 'p', { spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'a' } }] } }),
    victim: shaped('ns', 'v', { spec: { volumes: [{ name: 'c', configMap: { name: 'x' } }, { name: 't', emptyDir: {} }, { name: 'k', projected: {} }] } }),
    matters: undefined,
  },
  {
    rule: 'a victim volume is irrelevant to a preemptor without storage',
    preemptor: shaped('ns', 'p'),
    victim: shaped('ns', 'v', { spec: { volumes: [{ name: 'disk', csi: { driver: 'x' } }] } }),
    matters: undefined,
  },
  // DynamicResources
  {
    rule: 'both use resource claims',
    preemptor: shaped('ns', 'p', { spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'a' }] } }),
    victim: shaped('ns', 'v', { spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'b' }] } }),
    matters: /resource claims/,
  },
  {
    rule: 'a victim holding claims while the preemptor asks for an extended resource DRA may serve',
    preemptor: shaped('ns', 'p', { spec: { containers: [{ name: 'c', resources: { requests: { 'example.com/gpu': '1' } } }] } }),
    victim: shaped('ns', 'v', { status: { extendedResourceClaimStatus: { resourceClaimName: 'v-gpu' } } }),
    matters: /extended resources/,
  },
  {
    rule: 'a victim holding claims while the preemptor asks for a device class by its implicit extended resource name',
    preemptor: shaped('ns', 'p', { spec: { containers: [{ name: 'c', resources: { requests: { 'deviceclass.resource.kubernetes.io/gpu': '1' } } }] } }),
    victim: shaped('ns', 'v', { spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'b' }] } }),
    matters: /extended resources/,
  },
  {
    rule: 'a victim holding claims is irrelevant to a cpu-only preemptor',
    preemptor: shaped('ns', 'p'),
    victim: shaped('ns', 'v', { spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'b' }] } }),
    matters: undefined,
  },
];

describe('preempt: which victims kube-ledger may reprieve (victim-relevance)', () => {
  for (const row of ROWS) {
    it(`${row.rule}: ${row.matters ? 'the victim stays' : 'may be reprieved'}`, () => {
      const reason = whyVictimMayMatter(row.preemptor, row.victim);
      if (row.matters === undefined) assert.equal(reason, undefined);
      else {
        assert.match(reason ?? '(provably irrelevant)', row.matters);
        assert.equal(victimHold(row.preemptor, row.victim)?.filter, filterOf(reason!), 'the metric code names the same filter');
      }
    });
  }
});

/** The victim as the ledger reads it back once bound: a view of the pod store. */
function boundInStore(store: PodStore, object: PodObject): PodEntry {
  const computed = computeRequests(object);
  if (computed.error !== undefined) throw new Error(computed.error);
  const id = store.stage(object, computed.requests, computed.nonZero);
  store.store(id);
  return store.view(id);
}

describe('preempt: a bound victim is judged from what the ledger keeps of it', () => {
  it('for every preemptor and victim of the table, the preemptor\'s rules settled once give the hold its object gives', () => {
    const store = new PodStore();
    const victims = ROWS.map((row, i) => {
      const object = { ...row.victim, metadata: { ...row.victim.metadata, name: `v${i}` }, spec: { ...row.victim.spec, nodeName: 'n1' } };
      return { object, bound: boundInStore(store, object) };
    });
    for (const row of ROWS) {
      const rules = preemptorRules(row.preemptor);
      for (const victim of victims) {
        const expected = victimHold(row.preemptor, victim.object);
        assert.deepEqual(holdFor(rules, podRuleFacts(victim.bound)), expected, `${row.rule} / ${victim.object.metadata.name}`);
        assert.deepEqual(victimHold(row.preemptor, victim.bound.object), expected);
      }
    }
  });
});

/** The filter code a reason message belongs to, read from the message's own wording. */
function filterOf(reason: string): OtherFilter {
  if (reason.includes('(NodePorts)')) return 'host_port';
  if (reason.includes('selects the preemptor')) return 'victim_anti_affinity';
  if (reason.includes('podAntiAffinity')) return 'pod_anti_affinity';
  if (reason.includes('podAffinity')) return 'pod_affinity';
  if (reason.includes('(PodTopologySpread)')) return 'topology_spread';
  if (reason.includes('storage volumes')) return 'storage';
  return 'claims';
}

describe('label selectors as apimachinery LabelSelectorAsSelector evaluates them', () => {
  const cases: Array<{ selector: LabelSelector | null | undefined; labels: Record<string, string> | undefined; expected: boolean | 'invalid' }> = [
    { selector: null, labels: { a: '1' }, expected: false },
    { selector: undefined, labels: { a: '1' }, expected: false },
    { selector: {}, labels: undefined, expected: true },
    { selector: { matchLabels: { a: '1' } }, labels: { a: '1', b: '2' }, expected: true },
    { selector: { matchLabels: { a: '1' } }, labels: { a: '2' }, expected: false },
    { selector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '2'] }] }, labels: { a: '2' }, expected: true },
    { selector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['1'] }] }, labels: {}, expected: false },
    { selector: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, labels: {}, expected: true },
    { selector: { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, labels: { a: '1' }, expected: false },
    { selector: { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, labels: { a: '' }, expected: true },
    { selector: { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, labels: { a: '' }, expected: false },
    { selector: { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, labels: { a: '1' }, expected: 'invalid' },
    { selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['1'] }] }, labels: { a: '1' }, expected: 'invalid' },
    { selector: { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, labels: { a: '2' }, expected: 'invalid' },
    // Malformed shapes from the wire are invalid, never a crash.
    { selector: { matchExpressions: {} } as unknown as LabelSelector, labels: {}, expected: 'invalid' },
    { selector: { matchLabels: 'app=web' } as unknown as LabelSelector, labels: {}, expected: 'invalid' },
    { selector: [] as unknown as LabelSelector, labels: {}, expected: 'invalid' },
    { selector: { matchExpressions: [null] } as unknown as LabelSelector, labels: {}, expected: 'invalid' },
    { selector: { matchExpressions: [{ key: 'a', operator: 'In', values: 'x' }] } as unknown as LabelSelector, labels: {}, expected: 'invalid' },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.selector)} on ${JSON.stringify(c.labels)} → ${c.expected}`, () => {
      assert.equal(selects(parseSelector(c.selector), c.labels), c.expected);
    });
  }
});
