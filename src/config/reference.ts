/**
 * The two documents written from the schema, so neither can drift from it: `config/extender.yaml` (every key at its
 * default, as a starting point for operators) and the reference tables of docs/configuration.md (keys, deprecated
 * keys, flags). `npm run config:generate` writes them; test/config/reference.test.ts fails when either differs from
 * what the schema renders.
 */
import { parse as parseYaml } from 'yaml';
import { FLAG_TO_KEY } from './cli.js';
import { envName } from './load-config.js';
import { DEPRECATED_FIELDS, FIELDS, type FieldSpec } from './schema.js';

/**
 * Short remarks shown beside a key (or a section) in config/extender.yaml; the full text is each field's `doc`.
 * Optional: a new key needs none.
 */
export const YAML_REMARKS: Readonly<Record<string, string>> = {
  'server.pathPrefix': 'e.g. "/scheduler" → POST /scheduler/filter',
  'server.bodyLimitBytes': '64 MiB: a 5000-node NodeList with images is ~22-58 MB',
  'server.keepAliveTimeoutMs': "above kube-scheduler's idle timeout (Go: 90 s), so a POST never races our close",
  'server.drainMs': 'after SIGTERM: /readyz 503, verbs still served while endpoints move',
  'server.bodyReadTimeoutMs': "a verb's body must arrive within this (408), well under the scheduler's 5 s",
  'server.maxBodyReaders': 'bodies read at once; a new request replaces the read stalled longest',
  'server.requestMemoryBudgetBytes': '0: a quarter of the smaller of the memory limit and the V8 heap limit',
  'server.tls.clientCAFile': 'set to require client certificates (mTLS)',
  'server.ops': '/metrics, /healthz, /readyz: Prometheus and kubelet probes, never kube-scheduler',
  'server.ops.host': 'empty: the same address as server.host',
  'server.ops.tls.clientCAFile': 'set to require a client certificate on /metrics (probes stay open)',
  'server.debug.enabled': 'auto: on for the demo and snapshot sources, off against a live cluster',
  'server.maxInFlightPerVerb': 'past it: filter 200 with Error, prioritize/preempt 503 (docs/operating.md)',
  'cluster.source': 'auto | snapshot | kube',
  'cluster.snapshotPath': '--cluster; empty with no kubeconfig → config/cluster/demo.yaml',
  'cluster.kubeconfig': '--kubeconfig; empty → in-cluster when available',
  'scheduling.mode': 'enforce | shadow (answer as if absent, count what would differ)',
  'scheduling.nominatedNode.policy': 'exclusive | prefer | off',
  'scheduling.scoring.strategy': 'LeastAllocated | MostAllocated',
  'dra.enabled': 'auto (on when slices with mappings exist) | true | false',
  'dra.unsafePolicy': 'reject | ignore',
  'dra.unknownUsePolicy': 'reject | accept; live (docs/dra.md "A restart forgets nothing")',
  'dra.admitNewClaims': 'false: stop new mapped claims (runbook step 1); bound claims keep counting',
  'dra.nodeSelector': 'e.g. "kube-ledger.io/dra-canary=true"; other nodes answer as with enabled: false',
  'freshness.requeueCapMs': "per-key backoff 5 ms doubling up to this (the nominator's queue)",
  'freshness.directRead': 'bounded per-object reads (preemption fallback, nominator 409 re-reads)',
  'freshness.directRead.timeoutMs': 'also the deadline of the quorum read (list limit=1)',
  'freshness.maxServeLagSeconds': 'live; beyond it filter/prioritize answer with an error and /readyz is 503',
  'freshness.bookmarkGraceSeconds': 'silence on a connected watch that is not yet lag',
  'freshness.gate.enabled': 'live; false = rollback: no written-RV gate, no victim proof',
  'freshness.proof.waitMs': 'live; wait for the informer to reach the quorum RV, then per-victim reads',
  'nomination.namespaces': 'allowlist; empty = none in scope',
  'logging.level': 'debug | info | warn | error',
};

const REMARK_COLUMN = 33;
const INDENT = '  ';

/** A YAML scalar as a person would write it: plain when unambiguous, else double-quoted. */
function yamlScalar(value: unknown): string {
  if (typeof value !== 'string') return String(value);
  // Plain only when YAML reads it back as this very string (not a number, boolean or null).
  const plain = /^[A-Za-z0-9_./][A-Za-z0-9_./:-]*$/.test(value) && parseYaml(value) === value;
  return plain ? value : JSON.stringify(value);
}

function withRemark(line: string, path: string): string {
  const remark = YAML_REMARKS[path];
  return remark === undefined ? line : `${line.padEnd(REMARK_COLUMN)}# ${remark}`;
}

function yamlValueLines(field: FieldSpec, depth: number, key: string): string[] {
  const pad = INDENT.repeat(depth);
  const value = field.default;
  if (Array.isArray(value)) return [withRemark(`${pad}${key}: [${value.map(yamlScalar).join(', ')}]`, field.path)];
  if (typeof value === 'object' && value !== null) {
    return [withRemark(`${pad}${key}:`, field.path), ...Object.entries(value).map(([name, v]) => `${pad}${INDENT}${name}: ${yamlScalar(v)}`)];
  }
  return [withRemark(`${pad}${key}: ${yamlScalar(value)}`, field.path)];
}

/** config/extender.yaml: every key of the schema, in schema order, at its default. */
export function renderExtenderYaml(): string {
  const lines = [
    '# kube-ledger extender configuration. Every key is optional; the values shown are the defaults.',
    '# Flags and KUBE_LEDGER_* environment variables override this file (see docs/configuration.md).',
    '# Generated from src/config/schema.ts by `npm run config:generate`: change the schema, then regenerate.',
  ];
  let open: string[] = [];
  for (const field of FIELDS) {
    const parts = field.path.split('.');
    const sections = parts.slice(0, -1);
    let shared = 0;
    while (shared < sections.length && shared < open.length && sections[shared] === open[shared]) shared++;
    for (let depth = shared; depth < sections.length; depth++) {
      lines.push(withRemark(`${INDENT.repeat(depth)}${sections[depth]}:`, sections.slice(0, depth + 1).join('.')));
    }
    open = sections;
    lines.push(...yamlValueLines(field, sections.length, parts[parts.length - 1]!));
  }
  return lines.join('\n') + '\n';
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

export const REFERENCE_START = '<!-- configuration reference: generated by `npm run config:generate` from src/config/schema.ts -->';
export const REFERENCE_END = '<!-- end of configuration reference -->';

/** The configuration reference: every key, the deprecated keys still accepted, and the flags, between the two markers. */
export function renderReferenceTable(): string {
  const rows = FIELDS.map((field) => {
    // Weights are a mapping, which one environment variable cannot carry (applyEnvironment skips them).
    const env = field.rule.type === 'weights' ? '—' : `\`${envName(field.path)}\``;
    return `| \`${field.path}\` | \`${JSON.stringify(field.default)}\` | ${field.live ? 'yes' : 'no'} | ${env} | ${cell(field.doc)} |`;
  });
  const deprecated = DEPRECATED_FIELDS.map((field) => `| \`${field.path}\` | \`${envName(field.path)}\` | ${cell(field.reason)}. |`);
  return [
    REFERENCE_START,
    '| key | default | live | environment | meaning |',
    '|---|---|---|---|---|',
    ...rows,
    ...(deprecated.length === 0
      ? []
      : [
          '',
          'Deprecated keys are still accepted (checked against their old rule), have no effect, and are reported once at',
          'start-up as a `DeprecationWarning` on stderr naming the key; remove them from your file:',
          '',
          '| deprecated key | environment | why |',
          '|---|---|---|',
          ...deprecated,
        ]),
    '',
    'Flags of `kube-ledger` (serving and `nominations clear`); each sets one key and wins over the file and the environment:',
    '',
    '| flag | key |',
    '|---|---|',
    '| `--config PATH` | the configuration file (environment `KUBE_LEDGER_CONFIG`) |',
    ...Object.entries(FLAG_TO_KEY).map(([flag, key]) => `| \`--${flag}\` | \`${key}\` |`),
    REFERENCE_END,
  ].join('\n');
}

/** The file that carries the rendered reference between the two markers. */
export const REFERENCE_DOCUMENT = 'docs/configuration.md';

/** `document` with the text between the markers replaced by the rendered reference. */
export function withReferenceTable(document: string): string {
  const start = document.indexOf(REFERENCE_START);
  const end = document.indexOf(REFERENCE_END);
  if (start < 0 || end < start) throw new Error(`${REFERENCE_DOCUMENT} lacks the configuration reference markers`);
  return document.slice(0, start) + renderReferenceTable() + document.slice(end + REFERENCE_END.length);
}
