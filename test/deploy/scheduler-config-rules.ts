/**
 * Checks a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) the way kube-scheduler does when it loads
 * one: strict decoding (unknown or mistyped fields fail), v1 defaulting, then the rules of upstream
 * ValidateKubeSchedulerConfiguration / validateExtenders that concern our configs. Written from reading those rules;
 * extra checks of ours are marked "ours". Returns every problem with its field path (empty = valid).
 */
const TOP_LEVEL_KEYS = new Set(['apiVersion', 'kind', 'parallelism', 'leaderElection', 'clientConnection',
  'healthzBindAddress', 'metricsBindAddress', 'enableProfiling', 'enableContentionProfiling',
  'percentageOfNodesToScore', 'podInitialBackoffSeconds', 'podMaxBackoffSeconds', 'profiles', 'extenders',
  'delayCacheUntilActive']);
const LEADER_ELECTION_KEYS = new Set(['leaderElect', 'leaseDuration', 'renewDeadline', 'retryPeriod', 'resourceLock',
  'resourceName', 'resourceNamespace']);
const CLIENT_CONNECTION_KEYS = new Set(['kubeconfig', 'acceptContentTypes', 'contentType', 'qps', 'burst']);
const PROFILE_KEYS = new Set(['schedulerName', 'percentageOfNodesToScore', 'plugins', 'pluginConfig']);
const EXTENDER_KEYS = new Set(['urlPrefix', 'filterVerb', 'preemptVerb', 'prioritizeVerb', 'weight', 'bindVerb',
  'enableHTTPS', 'tlsConfig', 'httpTimeout', 'nodeCacheCapable', 'managedResources', 'ignorable']);
const TLS_KEYS = new Set(['insecure', 'serverName', 'certFile', 'keyFile', 'caFile', 'certData', 'keyData', 'caData']);
const MANAGED_RESOURCE_KEYS = new Set(['name', 'ignoredByScheduler']);

type Json = Record<string, unknown>;

export function validateKubeSchedulerConfiguration(config: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(config)) return ['configuration must be an object'];
  if (config.apiVersion !== 'kubescheduler.config.k8s.io/v1') problems.push(`apiVersion: ${String(config.apiVersion)} is not kubescheduler.config.k8s.io/v1`);
  if (config.kind !== 'KubeSchedulerConfiguration') problems.push(`kind: ${String(config.kind)} is not KubeSchedulerConfiguration`);
  problems.push(...unknownKeys(config, TOP_LEVEL_KEYS, ''));
  problems.push(...validateNumbers(config));
  problems.push(...validateLeaderElection(config.leaderElection));
  if (config.clientConnection !== undefined) problems.push(...unknownKeys(config.clientConnection, CLIENT_CONNECTION_KEYS, 'clientConnection'));
  problems.push(...validateProfiles(config.profiles));
  problems.push(...validateExtenders(config.extenders));
  return problems;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownKeys(value: unknown, known: Set<string>, path: string): string[] {
  if (!isObject(value)) return [`${path || '.'}: must be an object`];
  return Object.keys(value).filter((key) => !known.has(key)).map((key) => `${path ? `${path}.` : ''}${key}: unknown field (strict decoding)`);
}

function validateNumbers(config: Json): string[] {
  const problems: string[] = [];
  const integer = (key: string, value: unknown) => {
    if (value !== undefined && !Number.isInteger(value)) problems.push(`${key}: must be an integer`);
  };
  for (const key of ['parallelism', 'percentageOfNodesToScore', 'podInitialBackoffSeconds', 'podMaxBackoffSeconds']) integer(key, config[key]);
  const parallelism = (config.parallelism as number | undefined) ?? 16;
  if (parallelism <= 0) problems.push('parallelism: should be an integer value greater than zero');
  const percentage = config.percentageOfNodesToScore as number | undefined;
  if (percentage !== undefined && (percentage < 0 || percentage > 100)) problems.push('percentageOfNodesToScore: not in valid range [0-100]');
  const initial = (config.podInitialBackoffSeconds as number | undefined) ?? 1;
  const max = (config.podMaxBackoffSeconds as number | undefined) ?? 10;
  if (initial <= 0) problems.push('podInitialBackoffSeconds: must be greater than 0');
  if (max < initial) problems.push('podMaxBackoffSeconds: must be greater than or equal to PodInitialBackoffSeconds');
  return problems;
}

function validateLeaderElection(value: unknown): string[] {
  if (value === undefined) return [];
  const problems = unknownKeys(value, LEADER_ELECTION_KEYS, 'leaderElection');
  if (!isObject(value)) return problems;
  const leaderElect = value.leaderElect ?? true;
  const lock = value.resourceLock ?? 'leases';
  if (leaderElect && lock !== 'leases') problems.push('leaderElection.resourceLock: resourceLock value must be "leases"');
  const durations: Record<string, number> = { leaseDuration: 15e9, renewDeadline: 10e9, retryPeriod: 2e9 };
  for (const key of Object.keys(durations)) {
    if (value[key] === undefined) continue;
    const parsed = parseGoDuration(value[key]);
    if (parsed === undefined) problems.push(`leaderElection.${key}: ${String(value[key])} is not a duration`);
    else durations[key] = parsed;
  }
  if (leaderElect) {
    for (const [key, nanos] of Object.entries(durations)) if (nanos <= 0) problems.push(`leaderElection.${key}: must be greater than zero`);
    if (durations.leaseDuration! <= durations.renewDeadline!) problems.push('leaderElection.leaseDuration: must be greater than renewDeadline');
  }
  if (leaderElect && value.resourceName === '') problems.push('leaderElection.resourceName: required');
  return problems;
}

function validateProfiles(value: unknown): string[] {
  // v1 defaulting: no profiles → one profile; a single profile without a name → default-scheduler.
  const profiles = value === undefined ? [{}] : value;
  if (!Array.isArray(profiles)) return ['profiles: must be a list'];
  if (profiles.length === 0) return ['profiles: Required value'];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  profiles.forEach((profile: unknown, index) => {
    const path = `profiles[${index}]`;
    problems.push(...unknownKeys(profile, PROFILE_KEYS, path));
    if (!isObject(profile)) return;
    const name = profile.schedulerName ?? (profiles.length === 1 ? 'default-scheduler' : '');
    if (typeof name !== 'string' || name === '') problems.push(`${path}.schedulerName: Required value`);
    else if (seen.has(name)) problems.push(`${path}.schedulerName: Duplicate value: profiles[${seen.get(name)}].schedulerName`);
    else seen.set(name, index);
  });
  return problems;
}

function validateExtenders(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return ['extenders: must be a list'];
  const problems: string[] = [];
  const managed = new Set<string>();
  let binders = 0;
  value.forEach((extender: unknown, index) => {
    const path = `extenders[${index}]`;
    problems.push(...unknownKeys(extender, EXTENDER_KEYS, path));
    if (!isObject(extender)) return;
    problems.push(...validateExtender(extender, path));
    if (typeof extender.bindVerb === 'string' && extender.bindVerb !== '') binders += 1;
    const resources = extender.managedResources ?? [];
    if (!Array.isArray(resources)) return void problems.push(`${path}.managedResources: must be a list`);
    resources.forEach((resource: unknown, j) => {
      const resourcePath = `${path}.managedResources[${j}]`;
      problems.push(...unknownKeys(resource, MANAGED_RESOURCE_KEYS, resourcePath));
      const name = isObject(resource) ? String(resource.name ?? '') : '';
      problems.push(...validateExtendedResourceName(name, `${resourcePath}.name`));
      if (managed.has(name)) problems.push(`${resourcePath}.name: duplicate extender managed resource name`);
      managed.add(name);
    });
  });
  if (binders > 1) problems.push(`extenders: found ${binders} extenders implementing bind: only one extender can implement bind`);
  return problems;
}

function validateExtender(extender: Json, path: string): string[] {
  const problems: string[] = [];
  for (const key of ['urlPrefix', 'filterVerb', 'preemptVerb', 'prioritizeVerb', 'bindVerb']) {
    if (extender[key] !== undefined && typeof extender[key] !== 'string') problems.push(`${path}.${key}: must be a string`);
  }
  for (const key of ['enableHTTPS', 'nodeCacheCapable', 'ignorable']) {
    if (extender[key] !== undefined && typeof extender[key] !== 'boolean') problems.push(`${path}.${key}: must be a boolean`);
  }
  if (extender.weight !== undefined && !Number.isInteger(extender.weight)) problems.push(`${path}.weight: must be an integer`);
  if (typeof extender.prioritizeVerb === 'string' && extender.prioritizeVerb !== '' && !((extender.weight as number) > 0)) {
    problems.push(`${path}.weight: must have a positive weight applied to it`);
  }
  problems.push(...validateUrlPrefix(extender, path));
  if (extender.httpTimeout !== undefined && parseGoDuration(extender.httpTimeout) === undefined) {
    problems.push(`${path}.httpTimeout: ${String(extender.httpTimeout)} is not a duration`);
  }
  if (extender.tlsConfig !== undefined) problems.push(...validateTlsConfig(extender.tlsConfig, `${path}.tlsConfig`));
  return problems;
}

/** Ours: upstream does not check urlPrefix, but an extender without a reachable http(s) URL is never right. */
function validateUrlPrefix(extender: Json, path: string): string[] {
  if (typeof extender.urlPrefix !== 'string' || extender.urlPrefix === '') return [`${path}.urlPrefix: Required value`];
  let url: URL;
  try {
    url = new URL(extender.urlPrefix);
  } catch {
    return [`${path}.urlPrefix: ${extender.urlPrefix} is not a URL`];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return [`${path}.urlPrefix: scheme must be http or https`];
  // enableHTTPS does not change the scheme of urlPrefix: TLS settings with an http:// URL would be silently unused.
  if (url.protocol === 'http:' && (extender.tlsConfig !== undefined || extender.enableHTTPS === true)) {
    return [`${path}.urlPrefix: TLS is configured but the URL is http://`];
  }
  return [];
}

function validateTlsConfig(value: unknown, path: string): string[] {
  const problems = unknownKeys(value, TLS_KEYS, path);
  if (!isObject(value)) return problems;
  if (value.insecure === true) problems.push(`${path}.insecure: must be false (ours: never skip server verification)`);
  if ((value.certFile === undefined) !== (value.keyFile === undefined)) problems.push(`${path}: certFile and keyFile go together`);
  for (const key of ['certData', 'keyData', 'caData']) {
    if (value[key] !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(String(value[key]))) problems.push(`${path}.${key}: must be base64`);
  }
  return problems;
}

const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function isQualifiedName(value: string): boolean {
  const parts = value.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1] ?? '';
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME_PART.test(name)) return false;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) return false;
  }
  return true;
}

/** An extended resource: a qualified name with a domain outside kubernetes.io, not a requests.* quota name. */
export function validateExtendedResourceName(name: string, path: string): string[] {
  if (!isQualifiedName(name)) return [`${path}: ${name} is not a qualified name`];
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  if (native || name.startsWith('requests.') || !isQualifiedName(`requests.${name}`)) {
    return [`${path}: ${name} is an invalid extended resource name`];
  }
  return [];
}

const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration grammar (as metav1.Duration decodes it), in nanoseconds; undefined when invalid. */
export function parseGoDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^([-+]?)(.*)$/.exec(value);
  const body = match?.[2] ?? '';
  if (body === '0') return 0;
  if (body === '') return undefined;
  const part = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let index = 0;
  while (index < body.length) {
    part.lastIndex = index;
    const piece = part.exec(body);
    if (!piece) return undefined;
    total += Number(piece[1]) * (DURATION_UNITS[piece[2]!] ?? Number.NaN);
    index = part.lastIndex;
  }
  return match?.[1] === '-' ? -total : total;
}
