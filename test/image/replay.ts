/**
 * The image without a container engine: replays the Dockerfile's `build` and `runtime` stages in a temporary directory
 * (each stage's WORKDIR /app becomes a directory of its own), then runs the result the way the Deployment runs the
 * container: `node /app/dist/main.js` as UID/GID 65532 (when we are root) with only the image's environment, on the
 * embedded demo cluster and on a snapshot with the Deployment's flags, serves a filter call, asks the image's
 * `kube-ledger explain`, stops it with SIGTERM, and checks that nothing under /app was written (readOnlyRootFilesystem).
 *
 * REPLAYED_STAGES below is the Dockerfile's instruction list, word for word; test/image/dockerfile.test.ts fails when
 * the two differ, so a change to the image is a change here too. Steps a host cannot replay as written are listed in
 * SUBSTITUTES with what is done instead and why.
 *
 *   node --import tsx test/image/replay.ts        # prints the report; exit 1 on failure
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The Dockerfile's stages, instruction by instruction (ARG, LABEL and EXPOSE are checked by the test, not replayed). */
export const REPLAYED_STAGES: Record<'build' | 'runtime', string[]> = {
  build: [
    'WORKDIR /app',
    'COPY package.json package-lock.json ./',
    'RUN npm ci --ignore-scripts --no-audit --no-fund',
    'COPY tsconfig.json tsconfig.build.json ./',
    'COPY src ./src',
    'RUN npm run build',
  ],
  runtime: [
    'WORKDIR /app',
    'ENV NODE_ENV=production',
    'ENV KUBE_LEDGER_REVISION=unknown',
    'COPY package.json package-lock.json ./',
    'RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force',
    'COPY --from=build /app/dist ./dist',
    'COPY config ./config',
    'COPY bin ./bin',
    'COPY LICENSE ./',
    'RUN ln -s /app/bin/kube-ledger.js /usr/local/bin/kube-ledger',
    'USER 65532:65532',
    'ENV NODE_OPTIONS="--max-old-space-size=768 --max-semi-space-size=32"',
    'ENTRYPOINT ["node", "--min-semi-space-size=32", "--initial-old-space-size=128", "--no-memory-reducer", "/app/dist/main.js"]',
  ],
};

/** Commands (or `&&` parts of one) replayed differently, and why. */
export const SUBSTITUTES: Record<string, string> = {
  'npm ci --ignore-scripts --no-audit --no-fund':
    'links the checkout\'s node_modules, installed by `npm ci` from the same package-lock.json (saves a second full install)',
  'npm cache clean --force': 'skipped: it would empty the machine\'s npm cache, which the image build does not share',
  'ln -s /app/bin/kube-ledger.js /usr/local/bin/kube-ledger': 'checks the link target exists and is executable; the CLI is then run through it',
};

export const IMAGE_UID = 65532;
export const IMAGE_ROOT = '/app';

export interface ReplayReport {
  dir: string;
  runtimeFiles: string[];
  productionPackages: string[];
  runs: Array<{ source: string; args: string[]; readyMs: number; filter: unknown; explainExit: number; explainOutput: string; exitCode: number | null; signal: string | null; log: string }>;
  ranAsUid: number | undefined;
  writtenUnderApp: string[];
}

interface StageState {
  dir: string;
  env: Record<string, string>;
  user?: { uid: number; gid: number };
  entrypoint?: string[];
}

export async function replayImage(options: { keep?: boolean; log?: (line: string) => void } = {}): Promise<ReplayReport> {
  const log = options.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'kube-ledger-image-'));
  // mkdtemp makes 0700; the image's user must be able to walk to /app like in a real root filesystem.
  chmodSync(dir, 0o755);
  try {
    const build = replayStage('build', join(dir, 'build'), {}, log);
    const runtime = replayStage('runtime', join(dir, 'runtime'), { build: build.dir }, log);
    const report: ReplayReport = {
      dir,
      runtimeFiles: readdirSync(runtime.dir).sort(),
      productionPackages: listPackages(join(runtime.dir, 'node_modules')),
      runs: [],
      ranAsUid: undefined,
      writtenUnderApp: [],
    };
    const before = snapshotTree(runtime.dir);
    const asRoot = process.getuid?.() === 0;
    report.ranAsUid = asRoot ? runtime.user?.uid : process.getuid?.();

    report.runs.push(await runContainer(runtime, [], 'demo cluster', asRoot, DEMO_FILTER, log));

    const snapshot = writeSnapshotMounts(dir);
    report.runs.push(await runContainer(runtime, [...deploymentArgs(snapshot.configDir), '--cluster', snapshot.clusterFile], 'snapshot', asRoot, SNAPSHOT_FILTER, log));

    const after = snapshotTree(runtime.dir);
    report.writtenUnderApp = diffTrees(before, after);
    return report;
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  }
}

function replayStage(name: 'build' | 'runtime', root: string, stages: Record<string, string>, log: (line: string) => void): StageState {
  const state: StageState = { dir: root, env: {} };
  for (const step of REPLAYED_STAGES[name]) {
    const [keyword, ...rest] = step.split(' ');
    const args = rest.join(' ');
    log(`[${name}] ${step}`);
    switch (keyword) {
      case 'WORKDIR':
        if (args !== IMAGE_ROOT) throw new Error(`replay maps only WORKDIR ${IMAGE_ROOT} (got ${args})`);
        mkdirSync(root, { recursive: true });
        chmodSync(root, 0o755);
        break;
      case 'ENV': {
        for (const match of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) state.env[match[1]!] = match[2]!.replace(/^"|"$/g, '');
        break;
      }
      case 'COPY':
        copyStep(args, root, stages);
        break;
      case 'RUN':
        for (const part of args.split(' && ')) runStep(part, root, state);
        break;
      case 'USER': {
        const [uid, gid] = args.split(':').map(Number);
        state.user = { uid: uid!, gid: gid ?? uid! };
        break;
      }
      case 'ENTRYPOINT':
        state.entrypoint = JSON.parse(args) as string[];
        break;
      default:
        throw new Error(`replay cannot perform ${keyword}`);
    }
  }
  return state;
}

function copyStep(args: string, root: string, stages: Record<string, string>): void {
  const words = args.split(' ');
  let fromStage: string | undefined;
  if (words[0]?.startsWith('--from=')) fromStage = words.shift()!.slice('--from='.length);
  const destination = words.pop()!;
  for (const source of words) {
    const from = fromStage === undefined ? join(REPO, source) : join(stages[fromStage] ?? missing(fromStage), relative(IMAGE_ROOT, source));
    const to = destination.endsWith('/') ? join(root, destination, source.split('/').at(-1)!) : join(root, destination);
    cpSync(from, to, { recursive: true });
  }
}

function missing(stage: string): never {
  throw new Error(`COPY --from=${stage}: no such stage replayed`);
}

function runStep(command: string, root: string, state: StageState): void {
  if (command === 'npm ci --ignore-scripts --no-audit --no-fund') {
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
    return;
  }
  if (command === 'npm cache clean --force') return;
  if (command === 'ln -s /app/bin/kube-ledger.js /usr/local/bin/kube-ledger') {
    const target = join(root, 'bin', 'kube-ledger.js');
    if ((statSync(target).mode & 0o111) === 0) throw new Error('bin/kube-ledger.js is not executable: the image\'s kube-ledger link would not run');
    return;
  }
  const result = spawnSync('sh', ['-c', command], {
    cwd: root,
    // As in `docker build`: the stage's ENV, plus what npm needs to find the machine's cache without the network.
    env: { ...process.env, ...state.env, npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' },
    encoding: 'utf8',
    timeout: 240_000,
  });
  if (result.status !== 0) throw new Error(`RUN ${command} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
}

function listPackages(nodeModules: string): string[] {
  const names: string[] = [];
  for (const entry of readdirSync(nodeModules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const scoped of readdirSync(join(nodeModules, entry))) names.push(`${entry}/${scoped}`);
    else names.push(entry);
  }
  return names.sort();
}

/** path → size:mtime for every file under root (links not followed). */
function snapshotTree(root: string): Map<string, string> {
  const seen = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      const stat = lstatSync(path);
      seen.set(relative(root, path), `${stat.size}:${stat.mtimeMs}`);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk(root);
  return seen;
}

function diffTrees(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [path, fingerprint] of after) if (before.get(path) !== fingerprint) changed.push(path);
  for (const path of before.keys()) if (!after.has(path)) changed.push(`${path} (removed)`);
  return changed.sort();
}

/** The Deployment's container args, with its ConfigMap mount point moved to `configDir`. */
export function deploymentArgs(configDir: string): string[] {
  const container = deploymentContainer();
  return (container.args ?? []).map((arg) => arg.replace(/^\/etc\/kube-ledger(?=\/|$)/, configDir));
}

export interface DeploymentContainer {
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string }>;
  ports?: Array<{ containerPort: number }>;
  securityContext?: { readOnlyRootFilesystem?: boolean; runAsNonRoot?: boolean };
}

export function deploymentContainer(): DeploymentContainer {
  const deployment = parseYaml(readFileSync(join(REPO, 'deploy', 'base', 'deployment.yaml'), 'utf8')) as {
    spec: { template: { spec: { containers: Array<DeploymentContainer & { name: string }>; securityContext?: { runAsUser?: number; runAsGroup?: number } } } };
  };
  const container = deployment.spec.template.spec.containers.find((c) => c.name === 'kube-ledger');
  if (!container) throw new Error('deploy/base/deployment.yaml has no kube-ledger container');
  return container;
}

function writeSnapshotMounts(dir: string): { configDir: string; clusterFile: string } {
  // The ConfigMap (deploy/base/extender.yaml) and a snapshot, in directories the image's user may read but not write.
  const configDir = join(dir, 'etc-kube-ledger');
  mkdirSync(configDir, { mode: 0o755 });
  cpSync(join(REPO, 'deploy', 'base', 'extender.yaml'), join(configDir, 'extender.yaml'));
  const clusterFile = join(dir, 'cluster.json');
  writeFileSync(clusterFile, JSON.stringify(SNAPSHOT));
  return { configDir, clusterFile };
}

const SNAPSHOT = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'big', resourceVersion: '1' }, status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } } },
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'small', resourceVersion: '1' }, status: { allocatable: { cpu: '2', memory: '4Gi', pods: '110' } } },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'shop', uid: 'u-web', resourceVersion: '2' },
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] },
      status: { phase: 'Pending' },
    },
  ],
};

interface FilterProbe {
  pod: string;
  body: unknown;
}

const DEMO_FILTER: FilterProbe = {
  pod: 'batch/low-fill',
  body: {
    Pod: { metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] } },
    Nodes: null,
    NodeNames: ['worker-a', 'worker-b', 'worker-c'],
  },
};

const SNAPSHOT_FILTER: FilterProbe = {
  pod: 'shop/web',
  body: {
    Pod: { metadata: { name: 'web', namespace: 'shop', uid: 'u-web' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '3' } } }] } },
    Nodes: null,
    NodeNames: ['big', 'small'],
  },
};

async function runContainer(runtime: StageState, extraArgs: string[], source: string, asRoot: boolean, probe: FilterProbe, log: (line: string) => void): Promise<ReplayReport['runs'][number]> {
  const [command, ...afterCommand] = runtime.entrypoint ?? [];
  // node's own flags come before the script (--min-semi-space-size, --initial-old-space-size and --no-memory-reducer, which NODE_OPTIONS refuses).
  const scriptAt = afterCommand.findIndex((arg) => !arg.startsWith('-'));
  const nodeFlags = scriptAt < 0 ? afterCommand : afterCommand.slice(0, scriptAt);
  const [script, ...entryArgs] = scriptAt < 0 ? [] : afterCommand.slice(scriptAt);
  if (command !== 'node' || script === undefined || !script.startsWith(`${IMAGE_ROOT}/`)) throw new Error(`replay expects ENTRYPOINT ["node", "${IMAGE_ROOT}/…"], got ${JSON.stringify(runtime.entrypoint)}`);
  const port = await freeLoopbackPort();
  const main = join(runtime.dir, relative(IMAGE_ROOT, script));
  // Only the image's environment: nothing from this machine (no KUBECONFIG, no KUBERNETES_SERVICE_HOST) leaks in.
  const env = { PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, HOME: '/', ...runtime.env };
  const identity = asRoot && runtime.user ? { uid: runtime.user.uid, gid: runtime.user.gid } : {};
  // Every listener on a free loopback port: the probes live on the operations port when the build has one.
  const opsPort = hasFlag(main, env, '--ops-port') ? await freeLoopbackPort() : undefined;
  const args = [main, ...entryArgs, ...extraArgs, '--host', '127.0.0.1', '--port', String(port), ...(opsPort === undefined ? [] : ['--ops-port', String(opsPort)])];
  log(`[run] ${source}: node ${[...nodeFlags, ...args].join(' ')}`);
  const started = Date.now();
  const child = spawn(process.execPath, [...nodeFlags, ...args], { cwd: runtime.dir, env, stdio: ['ignore', 'pipe', 'pipe'], ...identity });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolveExit) => child.on('exit', (code, signal) => resolveExit({ code, signal })));
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitReady(`http://127.0.0.1:${opsPort ?? port}`, child, () => output);
    const readyMs = Date.now() - started;
    const filterReply = await fetch(`${url}/filter`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(probe.body) });
    if (filterReply.status !== 200) throw new Error(`filter answered ${filterReply.status}: ${await filterReply.text()}`);
    const filter: unknown = await filterReply.json();
    // The image's CLI, through the path the /usr/local/bin/kube-ledger link points at, as the same user.
    const explain = spawnSync(process.execPath, [join(runtime.dir, 'bin', 'kube-ledger.js'), 'explain', probe.pod, '--server', url], { cwd: runtime.dir, env, encoding: 'utf8', timeout: 30_000, ...identity });
    child.kill('SIGTERM');
    const exit = await withTimeout(exited, 15_000, 'did not stop within 15 s of SIGTERM');
    return { source, args: args.slice(1), readyMs, filter, explainExit: explain.status ?? -1, explainOutput: explain.stdout + explain.stderr, exitCode: exit.code, signal: exit.signal, log: output };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** Whether the built kube-ledger's usage names `flag`. */
function hasFlag(main: string, env: Record<string, string>, flag: string): boolean {
  const usage = spawnSync(process.execPath, [main, '--help'], { env, encoding: 'utf8', timeout: 30_000 });
  if (usage.status !== 0) throw new Error(`node ${main} --help failed (${usage.status ?? usage.signal}): ${usage.stderr}`);
  return usage.stdout.includes(`${flag} `);
}

async function waitReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before ready:\n${output()}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`not ready within 60 s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}

async function freeLoopbackPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  replayImage({ log: (line) => process.stdout.write(line + '\n') }).then(
    (report) => {
      for (const run of report.runs) {
        process.stdout.write(`\n${run.source}: ready in ${run.readyMs} ms, filter ${JSON.stringify(run.filter)}, explain exit ${run.explainExit}, exit ${run.exitCode ?? run.signal}\n`);
      }
      process.stdout.write(`\nproduction packages: ${report.productionPackages.length}; ran as uid ${report.ranAsUid}; written under /app: ${report.writtenUnderApp.length === 0 ? 'nothing' : report.writtenUnderApp.join(', ')}\n`);
      const ok = report.runs.every((run) => run.exitCode === 0 && run.explainExit === 0) && report.writtenUnderApp.length === 0;
      process.exit(ok ? 0 : 1);
    },
    (err: unknown) => {
      process.stderr.write(`replay failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}


