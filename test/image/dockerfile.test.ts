/**
 * The Dockerfile, the replay that CI runs instead of a container engine (replay.ts), the Deployment and .dockerignore
 * describe one image: these checks fail as soon as one of them changes without the others.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allContainers, render } from '../deploy/kustomize.js';
import { parseDockerfile, readEnv, readExecForm, readLabels, stage, type Dockerfile } from './dockerfile.js';
import { REPLAYED_STAGES, REPO, SUBSTITUTES } from './replay.js';

const NOT_REPLAYED = new Set(['ARG', 'LABEL', 'EXPOSE']);
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string; license: string; engines: { node: string } };

function dockerfile(): Dockerfile {
  return parseDockerfile(readFileSync(join(REPO, 'Dockerfile'), 'utf8'));
}

function only(keyword: string, stageName: string): string[] {
  return stage(dockerfile(), stageName).instructions.filter((i) => i.keyword === keyword).map((i) => i.text);
}

function runtimeEnv(): Record<string, string> {
  return Object.assign({}, ...only('ENV', 'runtime').map(readEnv)) as Record<string, string>;
}

function runtimeUser(): { uid: number; gid: number } {
  const [user] = only('USER', 'runtime');
  const match = /^(\d+):(\d+)$/.exec(user ?? '');
  assert.ok(match, `USER must be numeric uid:gid (runAsNonRoot can only verify a number), got ${user}`);
  return { uid: Number(match[1]), gid: Number(match[2]) };
}

describe('image: Dockerfile ⇄ replay ⇄ Deployment', () => {
  it('has a build stage and a runtime stage on the same Node.js 24 base', () => {
    const file = dockerfile();
    assert.deepEqual(file.stages.map((s) => s.name), ['build', 'runtime']);
    const version = file.globalArgs['NODE_VERSION'] ?? '';
    assert.match(version, /^24\.\d+\.\d+$/, 'the image targets the current LTS line, pinned to a patch release');
    for (const s of file.stages) assert.equal(s.from, `node:${version}-bookworm-slim`);
  });

  it('has stages identical, instruction by instruction, to the ones the replay performs', () => {
    const file = dockerfile();
    for (const name of ['build', 'runtime'] as const) {
      const steps = stage(file, name).instructions.filter((i) => !NOT_REPLAYED.has(i.keyword)).map((i) => `${i.keyword} ${i.text}`);
      assert.deepEqual(steps, REPLAYED_STAGES[name], `stage ${name}: change test/image/replay.ts together with the Dockerfile`);
    }
  });

  it('replaces only commands that really are in the Dockerfile', () => {
    const runs = [...only('RUN', 'build'), ...only('RUN', 'runtime')].flatMap((run) => run.split(' && '));
    for (const command of Object.keys(SUBSTITUTES)) assert.ok(runs.includes(command), `stale substitute: ${command}`);
  });

  it('builds with tsc in the first stage and ships only production dependencies and dist/ in the runtime stage', () => {
    assert.ok(only('RUN', 'build').includes('npm run build'));
    const runtimeRuns = only('RUN', 'runtime').join(' && ');
    assert.match(runtimeRuns, /npm ci --omit=dev/);
    const fromBuild = only('COPY', 'runtime').filter((copy) => copy.startsWith('--from='));
    assert.deepEqual(fromBuild, ['--from=build /app/dist ./dist'], 'nothing but dist/ comes from the build stage (no dev node_modules)');
    assert.ok(!only('COPY', 'runtime').some((copy) => /\b(src|test|tsconfig)/.test(copy)), 'no sources or compiler configuration in the runtime stage');
  });

  it('runs as a numeric non-root user, with an exec-form ENTRYPOINT on the compiled code', () => {
    const user = runtimeUser();
    assert.notEqual(user.uid, 0);
    assert.notEqual(user.gid, 0);
    assert.deepEqual(readExecForm(only('ENTRYPOINT', 'runtime')[0]!), ['node', '--min-semi-space-size=32', '--initial-old-space-size=128', '--no-memory-reducer', '/app/dist/main.js']);
  });

  it('carries the OCI labels, with the version and licence of package.json', () => {
    const labels = Object.assign({}, ...only('LABEL', 'runtime').map(readLabels)) as Record<string, string>;
    for (const key of ['title', 'description', 'licenses', 'version', 'revision', 'base.name']) {
      assert.ok(labels[`org.opencontainers.image.${key}`], `missing LABEL org.opencontainers.image.${key}`);
    }
    assert.equal(labels['org.opencontainers.image.version'], pkg.version);
    // The revision label and kube_ledger_build_info's revision are the same build argument.
    const source = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
    assert.match(source, /org\.opencontainers\.image\.revision="\$\{REVISION\}"/);
    assert.match(source, /^ENV KUBE_LEDGER_REVISION=\$\{REVISION\}$/m);
    assert.equal(runtimeEnv()['KUBE_LEDGER_REVISION'], labels['org.opencontainers.image.revision']);
    assert.equal(labels['org.opencontainers.image.licenses'], pkg.license);
    assert.equal(labels['org.opencontainers.image.title'], 'kube-ledger');
  });

  it('is what every overlay\'s Deployment runs: same command, NODE_OPTIONS, user, port, read-only root filesystem', () => {
    const entrypoint = readExecForm(only('ENTRYPOINT', 'runtime')[0]!);
    const env = runtimeEnv();
    const user = runtimeUser();
    const exposed = only('EXPOSE', 'runtime').flatMap((ports) => ports.split(' ')).map(Number);
    for (const overlay of ['base', 'overlays/dev', 'overlays/production']) {
      const objects = render(join(REPO, 'deploy', overlay));
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'kube-ledger')!;
      const podSpec = (deployment['spec'] as { template: { spec: { securityContext: Record<string, unknown> } } }).template.spec;
      const container = allContainers([deployment]).find((c) => c['name'] === 'kube-ledger') as {
        command?: string[];
        args?: string[];
        env?: Array<{ name: string; value?: string }>;
        ports: Array<{ containerPort: number }>;
        securityContext: { readOnlyRootFilesystem?: boolean };
      };
      assert.deepEqual(container.command, entrypoint, `${overlay}: command`);
      assert.equal(container.env?.find((e) => e.name === 'NODE_OPTIONS')?.value, env['NODE_OPTIONS'], `${overlay}: NODE_OPTIONS`);
      assert.equal(podSpec.securityContext['runAsUser'], user.uid, `${overlay}: runAsUser`);
      assert.equal(podSpec.securityContext['runAsGroup'], user.gid, `${overlay}: runAsGroup`);
      assert.equal(container.securityContext.readOnlyRootFilesystem, true, `${overlay}: readOnlyRootFilesystem`);
      assert.deepEqual(container.ports.map((p) => p.containerPort), exposed, `${overlay}: the Dockerfile's EXPOSE must list the container's ports`);
    }
  });

  it('has a .dockerignore that admits exactly what the Dockerfile copies from the context', () => {
    const rules = readFileSync(join(REPO, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
    assert.equal(rules[0], '*', 'an allowlist: everything is excluded first');
    const admitted = new Set(rules.slice(1).map((rule) => { assert.ok(rule.startsWith('!'), rule); return rule.slice(1).replace(/\/$/, ''); }));
    const copied = new Set<string>();
    for (const name of ['build', 'runtime']) {
      for (const copy of only('COPY', name).filter((c) => !c.startsWith('--from='))) {
        for (const source of copy.split(' ').slice(0, -1)) copied.add(source.replace(/\/$/, ''));
      }
    }
    assert.deepEqual([...admitted].sort(), [...copied].sort());
  });

  it('is tested on its own Node.js: CI runs the suite a second time on the Dockerfile\'s NODE_VERSION', () => {
    const ci = readFileSync(join(REPO, '.ci', 'run'), 'utf8');
    assert.match(ci, /ARG NODE_VERSION=/, '.ci/run reads the version from the Dockerfile');
    assert.match(ci, /with-node\.sh/);
    assert.ok(pkg.engines.node.split('||').some((range) => range.trim().startsWith('>=24') || range.trim().startsWith('^24')), 'engines admits Node 24');
  });
});
