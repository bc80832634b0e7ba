/**
 * Command line: flags map onto configuration keys (flags win over environment, which wins over the file).
 */
import { parseArgs } from 'node:util';
import { CONFIG_DEFAULTS } from './defaults.js';

export interface CommandLine {
  command: 'serve' | 'nominations-clear' | 'help' | 'version';
  configFile?: string;
  /** [config path, raw value, origin] in the order given. */
  overrides: Array<[string, unknown, string]>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Each serve flag and the configuration key it sets (the configuration reference lists them). */
export const FLAG_TO_KEY: Readonly<Record<string, string>> = {
  cluster: 'cluster.snapshotPath',
  kubeconfig: 'cluster.kubeconfig',
  port: 'server.port',
  host: 'server.host',
  'path-prefix': 'server.pathPrefix',
  'log-level': 'logging.level',
  mode: 'scheduling.mode',
  'nominated-node-policy': 'scheduling.nominatedNode.policy',
  'tls-cert-file': 'server.tls.certFile',
  'tls-key-file': 'server.tls.keyFile',
  'tls-client-ca-file': 'server.tls.clientCAFile',
  'body-limit-bytes': 'server.bodyLimitBytes',
  'ops-port': 'server.ops.port',
  debug: 'server.debug.enabled',
  nominate: 'nomination.enabled',
};

export const USAGE = `Usage: kube-ledger [flags]            serve the extender
       kube-ledger nominations clear [flags]   withdraw every nomination kube-ledger owns, then exit
       kube-ledger explain NAMESPACE/POD [--server URL]   why a pod fits or fails on each node (--help for flags)
       kube-ledger ledger [--node NAME] [--server URL]    a running kube-ledger's ledger, for people

Flags:
  --config PATH               extender configuration (default: config/extender.yaml; env KUBE_LEDGER_CONFIG)
  --cluster PATH              snapshot source: manifest file or directory (YAML or JSON), reloaded on change
  --kubeconfig PATH           live source: kubeconfig file (in-cluster config is used when running in a pod)
  --port N                    extender port: the verbs and /debug (default ${CONFIG_DEFAULTS.server.port})
  --ops-port N                operations port: /metrics, /healthz, /readyz (default ${CONFIG_DEFAULTS.server.ops.port})
  --debug auto|true|false     /debug/* endpoints (auto: on for the demo and snapshot sources, off against a cluster)
  --host ADDR                 listen address (default ${CONFIG_DEFAULTS.server.host})
  --path-prefix /P            prefix for /filter, /prioritize, /preempt
  --mode enforce|shadow       shadow answers as if kube-ledger were absent and counts what would differ
  --nominated-node-policy exclusive|prefer|off
  --tls-cert-file PATH --tls-key-file PATH [--tls-client-ca-file PATH]
  --body-limit-bytes N
  --nominate true|false       enable the external nominator
  --log-level debug|info|warn|error
  -h, --help                  this help
  --version                   print the version
With neither --cluster nor --kubeconfig, and outside a cluster, the embedded demo cluster config/cluster/demo.yaml is served.
Every configuration key can also be set by environment: KUBE_LEDGER_<KEY IN UPPER SNAKE CASE>, e.g. KUBE_LEDGER_SERVER_PORT.`;

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv = {}): CommandLine {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
  };
  for (const flag of Object.keys(FLAG_TO_KEY)) options[flag] = { type: 'string' };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true, tokens: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values['help']) return { command: 'help', overrides: [] };
  if (values['version']) return { command: 'version', overrides: [] };
  let command: CommandLine['command'] = 'serve';
  const positionals = parsed.positionals;
  if (positionals.length > 0) {
    if (positionals.join(' ') === 'nominations clear') command = 'nominations-clear';
    else throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  }
  const overrides: Array<[string, unknown, string]> = [];
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || !(token.name in FLAG_TO_KEY)) continue;
    if (token.value === undefined) throw new UsageError(`--${token.name} needs a value`);
    overrides.push([FLAG_TO_KEY[token.name]!, token.value, `flag --${token.name}`]);
  }
  const configFile = (values['config'] as string | undefined) ?? env['KUBE_LEDGER_CONFIG'];
  return { command, ...(configFile ? { configFile } : {}), overrides };
}
