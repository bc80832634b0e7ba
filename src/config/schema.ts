/**
 * The extender configuration: its shape, its defaults and the rules every value must satisfy. One table (`FIELDS`,
 * one entry per key) drives the type `ExtenderConfig`, the defaults, validation, live reload and the configuration
 * reference (docs/configuration.md), so they cannot drift apart.
 */
import { labelSelectorProblem } from './label-selector-text.js';
import { SCORING_STRATEGIES } from '../scheduling/score-strategies.js';

export type FieldRule =
  | { type: 'int'; min: number; max: number }
  | { type: 'string'; pattern?: RegExp; hint?: string; check?: (value: string) => string | undefined }
  | { type: 'enum'; values: readonly (string | boolean)[] }
  | { type: 'bool' }
  | { type: 'stringList' }
  | { type: 'weights' };

export interface FieldSpec {
  path: string;
  rule: FieldRule;
  default: unknown;
  doc: string;
  /**
   * Applied on config file change without restart. Every live key has a test that reloads it and observes the effect
   * (test/config/live-keys.test.ts); a key that cannot take effect without a restart is not marked.
   */
  live?: boolean;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Segments a URL path matches literally: unreserved characters, never the dot segments a client would collapse. */
const PATH_PREFIX = /^(\/(?!\.\.?(\/|$))[A-Za-z0-9._~-]+)*$/;

const FIELD_TABLE = [
  { path: 'server.host', rule: { type: 'string' }, default: '0.0.0.0', doc: 'Listen address of the extender port.' },
  { path: 'server.port', rule: { type: 'int', min: 0, max: 65535 }, default: 8888, doc: 'Extender port: the verbs and /debug (0 = any free port).' },
  { path: 'server.pathPrefix', rule: { type: 'string', pattern: PATH_PREFIX, hint: 'empty or like /scheduler (segments of [A-Za-z0-9._~-], not . or ..)' }, default: '', doc: 'Prefix for the verb paths, e.g. /scheduler → POST /scheduler/filter.' },
  { path: 'server.bodyLimitBytes', rule: { type: 'int', min: 1024, max: 1024 * 1024 * 1024 }, default: 64 * 1024 * 1024, doc: 'Largest request body accepted (413 beyond).' },
  { path: 'server.headersTimeoutMs', rule: { type: 'int', min: 100, max: 600_000 }, default: 10_000, doc: 'Time allowed to receive request headers.' },
  { path: 'server.requestTimeoutMs', rule: { type: 'int', min: 100, max: 600_000 }, default: 30_000, doc: 'Time allowed to receive a whole request.' },
  { path: 'server.keepAliveTimeoutMs', rule: { type: 'int', min: 1000, max: 3_600_000 }, default: 120_000, doc: 'Idle keep-alive connections are closed after this; keep it above the scheduler\'s idle timeout (Go: 90 s), else a POST can race the close.' },
  { path: 'server.shutdownDeadlineMs', rule: { type: 'int', min: 0, max: 600_000 }, default: 10_000, doc: 'How long the listeners, once closing, wait for in-flight requests (0 = close at once).' },
  { path: 'server.drainMs', rule: { type: 'int', min: 0, max: 600_000 }, default: 5000, doc: 'After SIGTERM, /readyz answers 503 and the verbs are still served this long (replies close their connections) while endpoints stop routing here; then the listeners close. Keep drainMs + shutdownDeadlineMs under the pod\'s terminationGracePeriodSeconds.' },
  { path: 'server.bodyReadTimeoutMs', rule: { type: 'int', min: 100, max: 600_000 }, default: 2000, doc: 'A verb\'s body must be complete this long after its headers (408 otherwise); well under kube-scheduler\'s httpTimeout (5 s).' },
  { path: 'server.maxBodyReaders', rule: { type: 'int', min: 1, max: 100_000 }, default: 256, doc: 'Verb bodies read at once; when all are taken a new request replaces the read that has gone longest without a byte (408).' },
  { path: 'server.requestMemoryBudgetBytes', rule: { type: 'int', min: 0, max: 1024 * 1024 * 1024 * 1024 }, default: 0, doc: 'Memory request bodies may hold at once (bytes read, then the estimated cost of decoding); 413 for a body that can never fit, shed while full. 0 = a quarter of the smaller of the container memory limit (cgroup) and the V8 heap limit.' },
  { path: 'server.tls.certFile', rule: { type: 'string' }, default: '', doc: 'PEM certificate; with keyFile enables HTTPS on the extender port (reloaded on change).' },
  { path: 'server.tls.keyFile', rule: { type: 'string' }, default: '', doc: 'PEM private key.' },
  { path: 'server.tls.clientCAFile', rule: { type: 'string' }, default: '', doc: 'CA bundle; when set, every extender-port request (verbs, /debug) needs a client certificate it signed (mTLS, 403 otherwise).' },
  // --- operations listener, debug switch, load shedding (security: least exposure by default) ---
  { path: 'server.ops.host', rule: { type: 'string' }, default: '', doc: 'Listen address of the operations port (/metrics, /healthz, /readyz); empty = server.host.' },
  { path: 'server.ops.port', rule: { type: 'int', min: 0, max: 65535 }, default: 8889, doc: 'Operations port: /metrics, /healthz, /readyz, never the verbs or /debug (0 = any free port).' },
  { path: 'server.ops.tls.certFile', rule: { type: 'string' }, default: '', doc: 'PEM certificate; with keyFile enables HTTPS on the operations port (reloaded on change).' },
  { path: 'server.ops.tls.keyFile', rule: { type: 'string' }, default: '', doc: 'PEM private key of the operations port.' },
  { path: 'server.ops.tls.clientCAFile', rule: { type: 'string' }, default: '', doc: 'CA bundle; when set, /metrics needs a client certificate it signed; /healthz and /readyz stay open for kubelet probes.' },
  { path: 'server.debug.enabled', rule: { type: 'enum', values: ['auto', true, false] }, default: 'auto', doc: '/debug/* on the extender port (every tenant\'s pods, claims, devices); auto = on for the demo and snapshot sources, off against a live cluster. 404 when off.', live: true },
  { path: 'server.maxInFlightPerVerb', rule: { type: 'int', min: 1, max: 10_000 }, default: 16, doc: 'Requests being served per verb (a request counts once its body is read; one caller, a connection or a client certificate, holds at most a quarter); beyond it the server answers at once (filter: 200 with Error; prioritize, preempt: 503).', live: true },
  { path: 'cluster.source', rule: { type: 'enum', values: ['auto', 'snapshot', 'kube'] }, default: 'auto', doc: 'auto: snapshot when a path is given, else kube when a kubeconfig or in-cluster config exists, else the demo cluster.' },
  { path: 'cluster.snapshotPath', rule: { type: 'string' }, default: '', doc: 'Manifest file or directory (--cluster).' },
  { path: 'cluster.kubeconfig', rule: { type: 'string' }, default: '', doc: 'Kubeconfig file (--kubeconfig).' },
  { path: 'cluster.stalenessWindowSeconds', rule: { type: 'int', min: 1, max: 3600 }, default: 30, doc: 'A resource with no event or bookmark for longer is reported lagging.' },
  { path: 'cluster.watchList', rule: { type: 'bool' }, default: true, doc: 'Read each resource\'s first view, and every relist, as a watch-list (streamed initial events, KEP-3157) when the API server supports it; paged lists of 500 otherwise, or when false.' },
  // Sized for 65k nodes / 1M pods with room: 1M pods are 2000 pages of 500 and ~2-10 GiB of JSON (managed fields).
  { path: 'cluster.list.maxPages', rule: { type: 'int', min: 1, max: 1_000_000 }, default: 4000, doc: 'Pages one paged list may take (500 objects each); past it the list is abandoned, its staged objects dropped, and it is retried after a backoff.' },
  { path: 'cluster.list.maxBytes', rule: { type: 'int', min: 1024 * 1024, max: 1024 ** 4 }, default: 32 * 1024 ** 3, doc: 'Bytes one list (all its pages, or a watch-list\'s initial events) may read; past it the list is abandoned and retried after a backoff.' },
  { path: 'cluster.list.maxSeconds', rule: { type: 'int', min: 10, max: 86_400 }, default: 1800, doc: 'Time one list may take, first request to last object; past it the list is abandoned and retried after a backoff.' },
  { path: 'scheduling.mode', rule: { type: 'enum', values: ['enforce', 'shadow'] }, default: 'enforce', doc: 'shadow: answer as if absent (all pass, equal scores, victims unchanged) and count what would differ.', live: true },
  { path: 'scheduling.nominatedNode.policy', rule: { type: 'enum', values: ['exclusive', 'prefer', 'off'] }, default: 'exclusive', doc: 'exclusive: a fitting nominated node is the only answer; prefer: full scan, nominated node scored highest; off.', live: true },
  { path: 'scheduling.scoring.strategy', rule: { type: 'enum', values: SCORING_STRATEGIES }, default: 'LeastAllocated', doc: 'LeastAllocated spreads; MostAllocated bin-packs (the strategies of src/scheduling/score-strategies.ts; any other name is refused).', live: true },
  { path: 'scheduling.scoring.resources', rule: { type: 'weights' }, default: { cpu: 1, memory: 1 }, doc: 'Resource name → integer weight (1..100) for scoring.', live: true },
  { path: 'scheduling.scoring.draAware', rule: { type: 'bool' }, default: false, doc: 'Ours, not upstream\'s: a pending pod\'s score also counts the node-allocatable footprint of its DRA claims on each node. Upstream NodeResourcesFit scores the pod\'s own requests only (false).', live: true },
  { path: 'scheduling.cycleCache.enabled', rule: { type: 'bool' }, default: true, doc: 'What the verbs remember between calls (decoded candidate lists, compiled demands, remembered verdicts, reply fragments). false: every call starts from nothing; the answers are identical, only slower (for diagnosis).', live: true },
  { path: 'dra.enabled', rule: { type: 'enum', values: ['auto', true, false] }, default: 'auto', doc: 'DRA node-allocatable accounting: auto = on when any ResourceSlice has mappings.', live: true },
  { path: 'dra.numaAttribute', rule: { type: 'string', pattern: /^\S+$/, hint: 'a qualified attribute name' }, default: 'resource.kubernetes.io/numaNode', doc: 'Device attribute that names the NUMA zone.' },
  { path: 'dra.extraNumaAttributes', rule: { type: 'stringList' }, default: [], doc: 'Driver-specific NUMA attributes also accepted.' },
  { path: 'dra.unsafePolicy', rule: { type: 'enum', values: ['reject', 'ignore'] }, default: 'reject', doc: 'reject: pods needing DRA node resources fail on nodes whose DRA data is stale or inconsistent.', live: true },
  { path: 'dra.unknownUsePolicy', rule: { type: 'enum', values: ['reject', 'accept'] }, default: 'reject', doc: 'reject: after a restart, a node holding a claim whose devices no slice lists and whose pod reports no status refuses pods that request what the claim may consume ("DRA use unknown") until slices or pod status price it; accept: judge it by what is known (risk of over-commit).', live: true },
  { path: 'dra.freshnessWindowSeconds', rule: { type: 'int', min: 1, max: 86400 }, default: 120, doc: 'Slice data older than this makes DRA accounting unsafe.' },
  { path: 'dra.admitNewClaims', rule: { type: 'bool' }, default: true, doc: 'false: pending pods whose unallocated claims would consume mapped node resources are refused (rollback lever); bound claims keep counting.', live: true },
  { path: 'dra.nodeSelector', rule: { type: 'string', check: labelSelectorProblem }, default: '', doc: 'Label selector (kubectl -l syntax) of the nodes with DRA accounting; other nodes answer as with dra.enabled false. Empty = all nodes.', live: true },
  { path: 'freshness.requeueCapMs', rule: { type: 'int', min: 5, max: 600_000 }, default: 5000, doc: 'Cap of the per-key requeue backoff (starts at 5 ms).' },
  { path: 'freshness.directRead.maxConcurrent', rule: { type: 'int', min: 1, max: 256 }, default: 4, doc: 'Direct API reads in flight at most.' },
  { path: 'freshness.directRead.timeoutMs', rule: { type: 'int', min: 10, max: 60_000 }, default: 1000, doc: 'Timeout of one direct read.' },
  { path: 'freshness.directRead.ratePerSecond', rule: { type: 'int', min: 1, max: 10_000 }, default: 20, doc: 'Token-bucket refill rate for direct reads.' },
  { path: 'freshness.directRead.burst', rule: { type: 'int', min: 1, max: 10_000 }, default: 40, doc: 'Token-bucket size.' },
  { path: 'freshness.directRead.breakerFailures', rule: { type: 'int', min: 1, max: 1000 }, default: 5, doc: 'Consecutive failed or slow reads that open the breaker.' },
  { path: 'freshness.directRead.breakerCooldownMs', rule: { type: 'int', min: 10, max: 600_000 }, default: 10_000, doc: 'Open breaker waits this long before a half-open probe.' },
  { path: 'freshness.maxServeLagSeconds', rule: { type: 'int', min: 1, max: 86_400 }, default: 60, doc: 'When the Node or Pod cache lags more than this (watch-health aware, see Reliability), filter and prioritize answer with an error and /readyz turns 503.', live: true },
  { path: 'freshness.bookmarkGraceSeconds', rule: { type: 'int', min: 1, max: 3600 }, default: 75, doc: 'Silence tolerated on a connected watch before it counts as lag (kube-apiserver bookmarks about every 60 s).' },
  { path: 'freshness.gate.enabled', rule: { type: 'bool' }, default: true, doc: 'Written-RV gate and preemption victim proof; false switches both off for rollback (counted in kube_ledger_freshness_gate_bypassed_total).', live: true },
  { path: 'freshness.proof.waitMs', rule: { type: 'int', min: 0, max: 10_000 }, default: 2000, doc: 'How long a preemption waits for the informer to reach the quorum resourceVersion (or the quiet probe to prove it current) before reading victims one by one within 1.5 s; worst case about 4.5 s, inside kube-scheduler\'s 5 s extender timeout.', live: true },
  { path: 'freshness.requestTimeouts.listMs', rule: { type: 'int', min: 100, max: 600_000 }, default: 60_000, doc: 'Deadline of one list page (headers and body); a quorum read uses freshness.directRead.timeoutMs.' },
  { path: 'freshness.requestTimeouts.watchOpenMs', rule: { type: 'int', min: 100, max: 600_000 }, default: 30_000, doc: 'Deadline for a watch request to get its response headers.' },
  { path: 'freshness.requestTimeouts.watchIdleMs', rule: { type: 'int', min: 1000, max: 3_600_000 }, default: 120_000, doc: 'A watch silent (no event, no bookmark) for longer is restarted from its last resourceVersion.' },
  { path: 'nomination.enabled', rule: { type: 'bool' }, default: false, doc: 'External nominator writes status.nominatedNodeName (leader only). false stops writes within 1 s.', live: true },
  { path: 'nomination.namespaces', rule: { type: 'stringList' }, default: [], doc: 'Namespaces in scope (canary allowlist; empty = none).', live: true },
  { path: 'nomination.priorityClasses', rule: { type: 'stringList' }, default: [], doc: 'PriorityClass names in scope (empty = any).', live: true },
  { path: 'nomination.ttlSeconds', rule: { type: 'int', min: 5, max: 3600 }, default: 60, doc: 'A nomination expires after this.', live: true },
  { path: 'nomination.leaseName', rule: { type: 'string', pattern: DNS_LABEL, hint: 'a DNS label' }, default: 'kube-ledger-nominator', doc: 'Lease used for leader election.' },
  { path: 'nomination.leaseNamespace', rule: { type: 'string', pattern: DNS_LABEL, hint: 'a DNS label' }, default: 'kube-ledger', doc: 'Namespace of the Lease.' },
  { path: 'nomination.workers', rule: { type: 'int', min: 1, max: 64 }, default: 4, doc: 'Nominator workers; one pod key is handled by one worker at a time, so a hung request holds only its own key.' },
  { path: 'nomination.schedulerNames', rule: { type: 'stringList' }, default: ['default-scheduler'], doc: 'Only pods whose spec.schedulerName is listed are nominated (the schedulers this extender serves).', live: true },
  { path: 'nomination.requestTimeouts.getMs', rule: { type: 'int', min: 100, max: 600_000 }, default: 5000, doc: 'Deadline of a nominator GET (also bounded by freshness.directRead for 409 re-reads).' },
  { path: 'nomination.requestTimeouts.patchMs', rule: { type: 'int', min: 100, max: 600_000 }, default: 5000, doc: 'Deadline of a pods/status PATCH; a black-holed PATCH frees its worker after this.' },
  { path: 'nomination.requestTimeouts.listMs', rule: { type: 'int', min: 100, max: 600_000 }, default: 30_000, doc: 'Deadline of one page of the pod list `nominations clear` reads.' },
  { path: 'nomination.requestTimeouts.eventMs', rule: { type: 'int', min: 100, max: 600_000 }, default: 5000, doc: 'Deadline of an Event create (best effort).' },
  { path: 'nomination.requestTimeouts.leaseMs', rule: { type: 'int', min: 100, max: 600_000 }, default: 4000, doc: 'Deadline of a Lease get/create/update; keep it below the 10 s renew deadline.' },
  { path: 'logging.level', rule: { type: 'enum', values: ['debug', 'info', 'warn', 'error'] }, default: 'info', doc: 'Log level.', live: true },
] as const satisfies readonly FieldSpec[];

/** Every key of the configuration, in reference order. */
export const FIELDS: readonly FieldSpec[] = FIELD_TABLE;

/** The value a rule admits. */
type RuleValue<R> = R extends { type: 'int' }
  ? number
  : R extends { type: 'string' }
    ? string
    : R extends { type: 'enum'; values: readonly (infer V)[] }
      ? V
      : R extends { type: 'bool' }
        ? boolean
        : R extends { type: 'stringList' }
          ? string[]
          : R extends { type: 'weights' }
            ? { [resource: string]: number }
            : never;

type Field = (typeof FIELD_TABLE)[number];
type FieldAt<P extends string> = Field extends infer F ? (F extends { path: P } ? F : never) : never;
type FirstSegment<P extends string> = P extends `${infer Head}.${string}` ? Head : P;
type AfterSegment<P extends string, Head extends string> = P extends `${Head}.${infer Rest}` ? Rest : never;

/** The section at `Prefix` (e.g. `server.`) holding the keys `Keys` (paths relative to it); one type per section. */
type Section<Prefix extends string, Keys extends string> = {
  -readonly [K in FirstSegment<Keys>]: K extends Keys
    ? RuleValue<FieldAt<`${Prefix}${K}`>['rule']>
    : Section<`${Prefix}${K}.`, AfterSegment<Keys, K>>;
};

/** The configuration's type, derived from `FIELDS`: a key added to the table is a property here. */
export type ExtenderConfig = Section<'', Field['path']>;

/** The keys marked live (each has a test that reloads it: test/config/live-keys.test.ts). */
export type LiveKey = Extract<Field, { live: true }>['path'];

/**
 * Keys that no longer do anything but are still accepted, so a configuration file written for an older release keeps
 * starting (an unknown key stops start-up). Each is checked against its old rule, ignored, and reported once as a
 * deprecation. They are not part of `ExtenderConfig`; remove one after a release that announced it.
 */
export interface DeprecatedFieldSpec {
  path: string;
  rule: FieldRule;
  /** Why it is gone and what replaces it; the warning and the configuration reference say this. */
  reason: string;
}

export const DEPRECATED_FIELDS: readonly DeprecatedFieldSpec[] = [
  {
    path: 'freshness.proofThresholdSeconds',
    rule: { type: 'int', min: 0, max: 3600 },
    reason: 'ignored since preemption proves the cache current with a consistent read (freshness.proof.waitMs) instead of trusting a cache younger than a threshold',
  },
];
