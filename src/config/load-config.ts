/**
 * Builds the effective configuration: defaults, then the YAML file, then KUBE_LEDGER_* environment variables, then
 * flags. Every value is validated against `FIELDS`; the first problem stops start-up with a message naming the key.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { defaultConfig, setAtPath } from './defaults.js';
import { DEPRECATED_FIELDS, FIELDS, type DeprecatedFieldSpec, type ExtenderConfig, type FieldRule, type FieldSpec } from './schema.js';

export class ConfigError extends Error {
  constructor(
    readonly key: string,
    readonly problem: string,
    readonly origin: string,
  ) {
    super(`invalid configuration: ${key}: ${problem} (from ${origin})`);
    this.name = 'ConfigError';
  }
}

type Tree = Record<string, unknown>;

export { defaultConfig } from './defaults.js';

const FIELD_BY_PATH = new Map(FIELDS.map((f) => [f.path, f]));
const DEPRECATED_BY_PATH = new Map(DEPRECATED_FIELDS.map((f) => [f.path, f]));
const SECTIONS = new Set(
  [...FIELDS, ...DEPRECATED_FIELDS].flatMap((f) => f.path.split('.').slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join('.'))),
);

/** Told about every deprecated key a configuration sets (the key, and a sentence saying why it is ignored). */
export type DeprecationSink = (key: string, message: string) => void;

const reportedDeprecations = new Set<string>();

/** Without a sink: a Node DeprecationWarning on stderr, once per key and process (a reload does not repeat it). */
const warnOnce: DeprecationSink = (key, message) => {
  if (reportedDeprecations.has(key)) return;
  reportedDeprecations.add(key);
  process.emitWarning(message, { type: 'DeprecationWarning', code: 'KUBE_LEDGER_DEPRECATED_KEY' });
};

function acceptDeprecated(field: DeprecatedFieldSpec, raw: unknown, origin: string, sink: DeprecationSink): void {
  coerce(field, raw, origin);
  sink(field.path, `configuration key ${field.path} (from ${origin}) is deprecated and has no effect: ${field.reason}; remove it`);
}

/** Walks a parsed YAML document and applies every leaf, rejecting unknown keys and wrong types. */
export function applyDocument(config: ExtenderConfig, doc: unknown, origin: string, onDeprecated: DeprecationSink = warnOnce): void {
  if (doc === null || doc === undefined) return;
  walk(doc, '', config as unknown as Tree, origin, onDeprecated);
}

function walk(value: unknown, prefix: string, config: Tree, origin: string, onDeprecated: DeprecationSink): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(prefix || '(top level)', 'expected a mapping', origin);
  }
  for (const [key, child] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const field = FIELD_BY_PATH.get(path);
    const deprecated = DEPRECATED_BY_PATH.get(path);
    if (field) setAtPath(config, path, coerce(field, child, origin));
    else if (deprecated) acceptDeprecated(deprecated, child, origin, onDeprecated);
    else if (SECTIONS.has(path)) walk(child, path, config, origin, onDeprecated);
    else throw new ConfigError(path, `unknown key${suggest(path)}`, origin);
  }
}

function suggest(path: string): string {
  const close = FIELDS.find((f) => f.path.toLowerCase() === path.toLowerCase());
  return close ? ` (did you mean ${close.path}?)` : '';
}

/** One value checked against its key's rule (the schema's; there is no other) and returned in its typed form. */
export function checkKey(path: string, raw: unknown, origin: string): unknown {
  const field = FIELD_BY_PATH.get(path);
  if (!field) throw new ConfigError(path, 'unknown key', origin);
  return coerce(field, raw, origin);
}

type RuleOf<T extends FieldRule['type']> = Extract<FieldRule, { type: T }>;
/** Reports the value's problem; never returns. */
type Fail = (problem: string) => never;

export function coerce(field: Pick<FieldSpec, 'path' | 'rule'>, raw: unknown, origin: string): unknown {
  const rule = field.rule;
  const fail: Fail = (problem) => {
    throw new ConfigError(field.path, problem, origin);
  };
  switch (rule.type) {
    case 'int':
      return coerceInt(rule, raw, fail);
    case 'string':
      return coerceString(rule, raw, fail);
    case 'enum':
      return coerceEnum(rule, raw, fail);
    case 'bool':
      return coerceBool(raw, fail);
    case 'stringList':
      return coerceStringList(raw, fail);
    case 'weights':
      return coerceWeights(raw, fail);
  }
}

function coerceInt(rule: RuleOf<'int'>, raw: unknown, fail: Fail): number {
  const n = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n)) return fail(`expected an integer, got ${JSON.stringify(raw)}`);
  if (n < rule.min || n > rule.max) return fail(`must be between ${rule.min} and ${rule.max}, got ${n}`);
  return n;
}

function coerceString(rule: RuleOf<'string'>, raw: unknown, fail: Fail): string {
  if (raw === null || raw === undefined) return '';
  if (typeof raw !== 'string') return fail(`expected a string, got ${JSON.stringify(raw)}`);
  if (rule.pattern && raw !== '' && !rule.pattern.test(raw)) return fail(`${rule.hint ?? 'invalid value'}, got ${JSON.stringify(raw)}`);
  const problem = rule.check && raw !== '' ? rule.check(raw) : undefined;
  if (problem) return fail(problem);
  return raw;
}

function coerceEnum(rule: RuleOf<'enum'>, raw: unknown, fail: Fail): string | boolean {
  const v = typeof raw === 'string' && (raw === 'true' || raw === 'false') && rule.values.includes(raw === 'true') ? raw === 'true' : raw;
  // The schema's own (interned) value, not the parser's equal copy: hot paths compare settings by pointer.
  const value = rule.values[rule.values.indexOf(v as string | boolean)];
  if (value === undefined) return fail(`must be one of ${rule.values.join(', ')}, got ${JSON.stringify(raw)}`);
  return value;
}

function coerceBool(raw: unknown, fail: Fail): boolean {
  if (raw === 'true' || raw === true) return true;
  if (raw === 'false' || raw === false) return false;
  return fail(`expected true or false, got ${JSON.stringify(raw)}`);
}

function coerceStringList(raw: unknown, fail: Fail): string[] {
  const list = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()).filter(Boolean) : raw ?? [];
  if (!Array.isArray(list) || list.some((s) => typeof s !== 'string' || s === '')) return fail('expected a list of non-empty strings');
  return list;
}

function coerceWeights(raw: unknown, fail: Fail): Record<string, number> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('expected a mapping of resource name to weight');
  const out: Record<string, number> = {};
  for (const [name, w] of Object.entries(raw)) {
    if (!/^[A-Za-z0-9][-A-Za-z0-9_./]*$/.test(name)) fail(`invalid resource name ${JSON.stringify(name)}`);
    if (typeof w !== 'number' || !Number.isInteger(w) || w < 0 || w > 100) fail(`weight of ${name} must be an integer 0..100`);
    out[name] = w as number;
  }
  if (Object.values(out).every((w) => w === 0)) fail('at least one resource needs a weight above 0');
  return out;
}

export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError('--config', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'command line');
  }
  try {
    return parseYaml(text);
  } catch (err) {
    throw new ConfigError('(file)', `invalid YAML: ${(err as Error).message}`, path);
  }
}

/**
 * Environment variables: KUBE_LEDGER_ + the key's path in upper snake case, each camelCase word its own word and a
 * run of capitals (an acronym) one word: server.port → KUBE_LEDGER_SERVER_PORT, server.tls.clientCAFile →
 * KUBE_LEDGER_SERVER_TLS_CLIENT_CA_FILE, server.maxInFlightPerVerb → KUBE_LEDGER_SERVER_MAX_IN_FLIGHT_PER_VERB.
 */
export function envName(path: string): string {
  const words = path.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2');
  return 'KUBE_LEDGER_' + words.replace(/\./g, '_').toUpperCase();
}

const ENV_PREFIX = 'KUBE_LEDGER_';

/**
 * KUBE_LEDGER_* names that are not configuration keys: the configuration file, the debug CLI's server URL, and the
 * revision the image was built from (app/build-identity.ts).
 */
export const NON_KEY_ENV_NAMES: ReadonlySet<string> = new Set(['KUBE_LEDGER_CONFIG', 'KUBE_LEDGER_SERVER', 'KUBE_LEDGER_REVISION']);

const FIELD_BY_ENV_NAME = new Map(FIELDS.map((f) => [envName(f.path), f]));
const DEPRECATED_BY_ENV_NAME = new Map(DEPRECATED_FIELDS.map((f) => [envName(f.path), f]));
const KNOWN_ENV_NAMES = [...FIELD_BY_ENV_NAME.keys(), ...DEPRECATED_BY_ENV_NAME.keys(), ...NON_KEY_ENV_NAMES];

/** Levenshtein distance, for naming the variable an unknown one was probably meant to be. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The valid variable an unknown one was most likely meant to be: one it is the start of, else the closest spelling. */
export function nearestEnvName(name: string): string {
  const extended = KNOWN_ENV_NAMES.filter((known) => known.startsWith(`${name}_`)).sort((a, b) => a.length - b.length)[0];
  if (extended !== undefined) return extended;
  let best = KNOWN_ENV_NAMES[0]!;
  let bestDistance = Infinity;
  for (const known of KNOWN_ENV_NAMES) {
    const distance = editDistance(name, known);
    if (distance < bestDistance) [best, bestDistance] = [known, distance];
  }
  return best;
}

/**
 * Applies KUBE_LEDGER_* variables. A variable that names no key stops start-up (as an unknown file key does), naming
 * the nearest valid variable: a misspelt security setting must never leave its default silently in place.
 */
export function applyEnvironment(config: ExtenderConfig, env: NodeJS.ProcessEnv, onDeprecated: DeprecationSink = warnOnce): void {
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || raw === undefined || NON_KEY_ENV_NAMES.has(name)) continue;
    const origin = `environment ${name}`;
    const field = FIELD_BY_ENV_NAME.get(name);
    const deprecated = DEPRECATED_BY_ENV_NAME.get(name);
    if (field?.rule.type === 'weights') throw new ConfigError(field.path, 'a mapping cannot be set from the environment; set it in the configuration file', origin);
    if (field) setAtPath(config as unknown as Tree, field.path, coerce(field, raw, origin));
    else if (deprecated) acceptDeprecated(deprecated, raw, origin, onDeprecated);
    else throw new ConfigError(name, `unknown environment variable (did you mean ${nearestEnvName(name)}?)`, 'environment');
  }
}

export function loadConfig(options: {
  file?: string;
  env?: NodeJS.ProcessEnv;
  overrides?: Array<[string, unknown, string]>;
  /** Where deprecated keys are reported; default: a Node DeprecationWarning, once per key. */
  onDeprecated?: DeprecationSink;
}): ExtenderConfig {
  const config = defaultConfig();
  const onDeprecated = options.onDeprecated ?? warnOnce;
  if (options.file) applyDocument(config, readConfigFile(options.file), options.file, onDeprecated);
  if (options.env) applyEnvironment(config, options.env, onDeprecated);
  for (const [path, raw, origin] of options.overrides ?? []) setAtPath(config as unknown as Tree, path, checkKey(path, raw, origin));
  checkCrossField(config);
  return config;
}

function checkCrossField(config: ExtenderConfig): void {
  checkTlsPair('server.tls', config.server.tls);
  checkTlsPair('server.ops.tls', config.server.ops.tls);
  checkServerAgreement(config.server, 'configuration');
}

/**
 * The `server.*` rules that involve two keys. The HTTP layer calls this too (through `checkKey` and this function), so
 * a value the loader accepts is never refused at start-up, and the reverse.
 */
export function checkServerAgreement(
  server: Pick<ExtenderConfig['server'], 'port' | 'headersTimeoutMs' | 'requestTimeoutMs'> & { ops: Pick<ExtenderConfig['server']['ops'], 'port'> },
  origin: string,
): void {
  const { port, ops } = server;
  if (port !== 0 && ops.port === port) {
    throw new ConfigError('server.ops.port', `must differ from server.port (${port}): the operations port serves a different audience`, origin);
  }
  if (server.headersTimeoutMs > server.requestTimeoutMs) {
    throw new ConfigError('server.headersTimeoutMs', `must not exceed server.requestTimeoutMs (${server.requestTimeoutMs}), got ${server.headersTimeoutMs}`, origin);
  }

}

function checkTlsPair(key: string, tls: { certFile: string; keyFile: string; clientCAFile: string }): void {
  if ((tls.certFile === '') !== (tls.keyFile === '')) {
    throw new ConfigError(key, 'certFile and keyFile must be set together', 'configuration');
  }
  if (tls.clientCAFile !== '' && tls.certFile === '') {
    throw new ConfigError(`${key}.clientCAFile`, 'client certificates need HTTPS: set certFile and keyFile too', 'configuration');
  }
}
