/**
 * `kube-ledger explain NS/POD` and `kube-ledger ledger [--node NAME]`: ask a running kube-ledger why a pod is pending
 * or what its ledger holds, and print it for a person (or, with `--output json`, the server's JSON unchanged). The
 * server's JSON is fetched and rendered here, so the CLI reads any server that speaks the /debug JSON contract.
 * Exit codes: 0 answered, 1 the server could not answer (unknown pod, unreachable, refused, debug off), 2 bad usage.
 */
import { parseArgs } from 'node:util';
import { CONFIG_DEFAULTS } from '../config/defaults.js';
import { CliFailure, debugGet, type DebugClientOptions, type DebugReply } from './debug-client.js';
import { renderExplainText } from './explain-text.js';
import { renderLedgerText } from './ledger-text.js';

/** A kube-ledger on this machine, on the schema's default extender port. */
export const DEFAULT_SERVER = `http://127.0.0.1:${CONFIG_DEFAULTS.server.port}`;

export const CLI_USAGE = `Usage: kube-ledger explain NAMESPACE/POD [flags]   why the pod fits or fails on each node
       kube-ledger ledger [--node NAME] [flags]      the node-allocatable ledger (all nodes, or one in detail)

Flags:
  --server URL                  a running kube-ledger (default ${DEFAULT_SERVER}; env KUBE_LEDGER_SERVER)
  --cert FILE --key FILE        client certificate and key, for a server with server.tls.clientCAFile (mTLS)
  --ca FILE                     CA bundle that signed the server's certificate (https:// servers)
  --insecure-skip-tls-verify    do not verify the server's certificate
  -o, --output text|json        text for people (default), json: the server's answer unchanged
  --node NAME                   ledger: one node, with its pods, nominations and DRA claim entries
  -h, --help                    this help`;

export interface CliOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processOutput: CliOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** Runs `explain ...` or `ledger ...` (argv without the node binary and script) and returns the exit code. */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, out: CliOutput = processOutput): Promise<number> {
  try {
    const { text } = await execute(argv, env);
    out.stdout(text);
    return 0;
  } catch (err) {
    if (err instanceof CliFailure) {
      out.stderr(`kube-ledger: ${err.message}\n`);
      if (err.exitCode === 2) out.stderr(`\n${CLI_USAGE}\n`);
      return err.exitCode;
    }
    out.stderr(`kube-ledger: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

interface ParsedCommon {
  output: 'text' | 'json';
  client: DebugClientOptions;
}

type Parsed = ParsedCommon & (
  | { command: 'explain'; pod: { namespace: string; name: string } }
  | { command: 'ledger'; node?: string }
  | { command: 'help' }
);

const CLI_OPTIONS = {
  server: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  ca: { type: 'string' },
  'insecure-skip-tls-verify': { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  node: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type CliValues = ReturnType<typeof parseFlags>['values'];

export function parseCliArguments(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Parsed {
  const [command, ...rest] = argv;
  if (command !== 'explain' && command !== 'ledger') throw new CliFailure(`unknown command ${JSON.stringify(command ?? '')}`, 2);
  const { values, positionals } = parseFlags(rest);
  const output = values.output ?? 'text';
  if (output !== 'text' && output !== 'json') throw new CliFailure(`--output must be text or json (got ${JSON.stringify(output)})`, 2);
  const client = clientOptions(values, env);
  if (values.help) return { command: 'help', output, client };
  if (command === 'explain') return { command, pod: explainedPod(values, positionals), output, client };
  if (positionals.length > 0) throw new CliFailure(`ledger takes no positional arguments (got ${positionals.join(' ')}); use --node NAME`, 2);
  if (values.node === '') throw new CliFailure('--node needs a node name', 2);
  return { command, ...(values.node !== undefined ? { node: values.node } : {}), output, client };
}

function parseFlags(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], allowPositionals: true, strict: true, options: CLI_OPTIONS });
  } catch (err) {
    throw new CliFailure((err as Error).message, 2);
  }
}

function clientOptions(values: CliValues, env: NodeJS.ProcessEnv): DebugClientOptions {
  const client: DebugClientOptions = { server: values.server ?? (env['KUBE_LEDGER_SERVER'] || DEFAULT_SERVER) };
  if (values.cert !== undefined) client.certFile = values.cert;
  if (values.key !== undefined) client.keyFile = values.key;
  if (values.ca !== undefined) client.caFile = values.ca;
  if (values['insecure-skip-tls-verify']) client.insecureSkipTlsVerify = true;
  return client;
}

/** explain's one NAMESPACE/POD argument. */
function explainedPod(values: CliValues, positionals: readonly string[]): { namespace: string; name: string } {
  if (values.node !== undefined) throw new CliFailure('--node belongs to `kube-ledger ledger`; explain takes NAMESPACE/POD', 2);
  if (positionals.length !== 1) throw new CliFailure('explain needs exactly one NAMESPACE/POD', 2);
  const parts = (positionals[0] ?? '').split('/');
  const [namespace, name] = parts;
  if (parts.length !== 2 || !namespace || !name) {
    throw new CliFailure(`${JSON.stringify(positionals[0])} is not NAMESPACE/POD (e.g. batch/low-fill)`, 2);
  }
  return { namespace, name };
}

async function execute(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<{ text: string }> {
  const parsed = parseCliArguments(argv, env);
  if (parsed.command === 'help') return { text: CLI_USAGE + '\n' };
  if (parsed.command === 'explain') {
    const pod = parsed.pod;
    const reply = await debugGet(parsed.client, `/debug/explain?pod=${encodeURIComponent(`${pod.namespace}/${pod.name}`)}`);
    await expectAnswer(parsed.client, reply, `pod ${pod.namespace}/${pod.name} is not known to kube-ledger (check the namespace and name; kube-ledger knows every pod its source lists)`);
    return { text: parsed.output === 'json' ? withNewline(reply.body) : renderExplainText(parseJson(reply)) };
  }
  const query = parsed.node === undefined ? '' : `?node=${encodeURIComponent(parsed.node)}`;
  const reply = await debugGet(parsed.client, `/debug/ledger${query}`);
  await expectAnswer(parsed.client, reply, `node ${parsed.node ?? ''} is not known to kube-ledger`);
  return { text: parsed.output === 'json' ? withNewline(reply.body) : renderLedgerText(parseJson(reply)) };
}

const DEBUG_OFF = 'the server has debug endpoints off: set server.debug.enabled: true (or start it with --debug true)';

/**
 * 200 passes; anything else becomes a CliFailure. A 404 means either "no such pod/node" or "debug endpoints are off":
 * a server says the latter with `X-Kube-Ledger-Debug: disabled`; one that does not (or a proxy in between) is asked
 * /debug/explain without a pod, which a server with debug on refuses with 400.
 */
async function expectAnswer(client: DebugClientOptions, reply: DebugReply, notKnown: string): Promise<void> {
  if (reply.status === 200) return;
  const message = errorMessage(reply);
  if (reply.status === 404) {
    if (reply.debugHeader === 'disabled') throw new CliFailure(DEBUG_OFF);
    const probe = await debugGet(client, '/debug/explain');
    if (probe.status === 404) throw new CliFailure(DEBUG_OFF);
    throw new CliFailure(notKnown);
  }
  if (reply.status === 403) {
    const hint = client.certFile === undefined
      ? 'pass --cert FILE --key FILE with a client certificate signed by the server\'s server.tls.clientCAFile'
      : 'the certificate given with --cert is not signed by the server\'s server.tls.clientCAFile';
    throw new CliFailure(`kube-ledger refused the request (403 ${message}): ${hint}`);
  }
  if (reply.status === 400) throw new CliFailure(`kube-ledger rejected the request: ${message}`, 2);
  throw new CliFailure(`kube-ledger answered ${reply.status}: ${message}`);
}

function errorMessage(reply: DebugReply): string {
  try {
    const body = JSON.parse(reply.body) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: show the text
  }
  return reply.body.trim().slice(0, 300) || '(empty body)';
}

function parseJson(reply: DebugReply): unknown {
  try {
    return JSON.parse(reply.body);
  } catch {
    throw new CliFailure(`kube-ledger answered 200 but not with JSON (${reply.contentType || 'no content type'}): is --server a kube-ledger?`);
  }
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : text + '\n';
}
