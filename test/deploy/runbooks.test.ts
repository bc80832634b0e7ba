/**
 * The runbooks (docs/runbooks/): one page per alert, and every command on them works on the production overlay as
 * written. Checked against the rendered overlay: the namespace, Deployment, Secrets, volumes, mount paths and ports a
 * command names exist there; `kube-ledger` CLI invocations parse and name files that are mounted; `curl` reaches a
 * port-forwarded port with the scheme production serves, on a route the server has; PromQL parses (promtool) and reads
 * only metrics kube-ledger defines, Node.js's own selected by job. No command talks plain HTTP to the extender or
 * curls a replica from outside without a port-forward.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { parseCliArguments } from '../../src/cli/debug-commands.js';
import { parseCommandLine } from '../../src/config/cli.js';
import type { ExtenderConfig } from '../../src/config/schema.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { promtool } from '../support/prometheus.js';
import { DEPLOY_DIR, readYamlDocuments, render, type KubeObject } from './kustomize.js';
import { RULES_FILE } from './prometheus-rule.js';

const RUNBOOKS_DIR = join(DEPLOY_DIR, '..', 'docs', 'runbooks');
const pages = readdirSync(RUNBOOKS_DIR).filter((f) => f.endsWith('.md')).map((file) => ({ file, text: readFileSync(join(RUNBOOKS_DIR, file), 'utf8') }));
const alerts = (readYamlDocuments(RULES_FILE)[0] as { groups: Array<{ rules: Array<{ alert: string }> }> }).groups.flatMap((g) => g.rules.map((r) => r.alert));

const production = render(join(DEPLOY_DIR, 'overlays/production'));
const deployment = production.find((o) => o.kind === 'Deployment' && o.metadata.name === 'kube-ledger') as KubeObject & { spec: any };
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const configMap = production.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'kube-ledger-config') as KubeObject & { data: Record<string, string> };
const config = parseYaml(configMap.data['extender.yaml']!) as ExtenderConfig;
const secretsMade = new Set(production.filter((o) => o.kind === 'Certificate').map((o) => (o as any).spec.secretName as string));
const mountPaths: string[] = container.volumeMounts.map((m: { mountPath: string }) => m.mountPath);
const containerPorts = new Set<number>(container.ports.map((p: { containerPort: number }) => p.containerPort));

/** Fenced blocks of a language, with shell line continuations joined. */
function blocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!.replace(/\\\n\s*/g, ''));
}

const shellLines = pages.flatMap(({ file, text }) => blocks(text, 'sh').flatMap((block) => block.split('\n').map((line) => ({ file, line: line.trim() })))).filter((l) => l.line !== '' && !l.line.startsWith('#'));
const inlineCommands = pages.flatMap(({ file, text }) => [...text.matchAll(/`(kubectl [^`]+)`/g)].map((m) => ({ file, line: m[1]! })));
const commands = [...shellLines, ...inlineCommands];
const queries = pages.flatMap(({ file, text }) => blocks(text, 'promql').map((q) => ({ file, query: q.trim() })));

/** Shell words of a command (quotes and trailing comments removed; enough for the commands the runbooks use). */
function words(line: string): string[] {
  const withoutComment = line.replace(/\s+#\s.*$/, '').replace(/\s*&$/, '');
  return [...withoutComment.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

describe('runbooks (docs/runbooks/)', () => {
  it('one page per alert, each with Impact, Diagnosis and Mitigation, all listed in the index', () => {
    const index = pages.find((p) => p.file === 'README.md')!.text;
    assert.deepEqual(pages.map((p) => p.file).filter((f) => f !== 'README.md').sort(), alerts.map((a) => `${a}.md`).sort());
    for (const alert of alerts) {
      const text = pages.find((p) => p.file === `${alert}.md`)!.text;
      assert.ok(text.startsWith(`# ${alert}\n`), alert);
      for (const section of ['## Impact', '## Diagnosis', '## Mitigation']) assert.ok(text.includes(section), `${alert}: ${section}`);
      assert.ok(index.includes(`[${alert}.md](${alert}.md)`), `${alert} missing from the index`);
    }
  });

  it('links between runbooks and to the index recipes resolve', () => {
    const anchors = new Set([...pages.find((p) => p.file === 'README.md')!.text.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.toLowerCase().replaceAll(' ', '-')));
    for (const { file, text } of pages) {
      for (const [, target] of text.matchAll(/\]\(([^)]+)\)/g)) {
        if (target!.startsWith('../') || target!.startsWith('http')) continue;
        const [linked, anchor] = target!.split('#');
        const path = linked === '' ? file : linked;
        assert.ok(pages.some((p) => p.file === path), `${file}: ${target} does not exist`);
        if (path === 'README.md' && anchor !== undefined) assert.ok(anchors.has(anchor), `${file}: no section #${anchor} in README.md`);
      }
    }
  });

  it('no command reaches a replica over plain HTTP or from outside without a port-forward', () => {
    for (const { file, text } of pages) {
      assert.doesNotMatch(text, /http:\/\//, `${file}: plain HTTP`);
      assert.doesNotMatch(text, /\b(host|HOST|kube-ledger[\w.-]*):(8888|8889)\b/, `${file}: a replica addressed directly`);
    }
    assert.ok(commands.length > 30);
  });

  it('kubectl commands name the namespace, Deployment, Secrets, volume and ports the production overlay has', () => {
    assert.ok(production.some((o) => o.kind === 'Namespace' && o.metadata.name === 'kube-ledger'));
    for (const { file, line } of commands.filter((c) => c.line.startsWith('kubectl'))) {
      const args = words(line);
      const namespace = args[args.indexOf('-n') + 1];
      if (args.includes('-n')) assert.ok(['kube-ledger', 'kube-system', 'NAMESPACE'].includes(namespace!), `${file}: ${line}`);
      if (namespace !== 'kube-ledger') continue;
      const secret = args[args.indexOf('secret') + 1];
      if (args.includes('secret') && secret !== undefined && !secret.startsWith('-')) assert.ok(secretsMade.has(secret), `${file}: no Certificate makes Secret ${secret}`);
      if (args.includes('deploy')) assert.equal(args[args.indexOf('deploy') + 1], deployment.metadata.name, `${file}: ${line}`);
      if (args.includes('-l')) assert.equal(args[args.indexOf('-l') + 1], 'app.kubernetes.io/name=kube-ledger', `${file}: ${line}`);
      const jsonpath = /volumes\[\?\(@\.name=="(\w+)"\)\]\.configMap\.name/.exec(line);
      if (jsonpath) assert.equal(pod.volumes.find((v: { name: string }) => v.name === jsonpath[1])?.configMap?.name, configMap.metadata.name, `${file}: ${line}`);
      if (args[3] === 'port-forward') {
        const [local, remote] = args[5]!.split(':').map(Number);
        assert.equal(local, remote, `${file}: ${line}`);
        assert.ok(containerPorts.has(remote!), `${file}: the container has no port ${remote}`);
      }
    }
  });

  it('kube-ledger CLI commands run in the pod parse, and name files the production pod mounts', () => {
    const cli = commands.filter((c) => /\bexec POD -- kube-ledger\b/.test(c.line));
    assert.ok(cli.length >= 4);
    for (const { file, line } of cli) {
      const args = words(line);
      const argv = args.slice(args.indexOf('kube-ledger', args.indexOf('--')) + 1);
      if (argv[0] === 'nominations') {
        assert.equal(parseCommandLine(argv).command, 'nominations-clear', `${file}: ${line}`);
        assert.ok(mountPaths.some((p) => argv[argv.indexOf('--config') + 1]!.startsWith(`${p}/`)), `${file}: --config is not mounted`);
        continue;
      }
      const parsed = parseCliArguments(argv);
      const server = new URL(parsed.client.server);
      assert.equal(server.protocol, config.server.tls.certFile ? 'https:' : 'http:', `${file}: ${line}`);
      assert.equal(server.hostname, 'localhost');
      assert.equal(Number(server.port), config.server.port);
      for (const path of [parsed.client.caFile, parsed.client.certFile, parsed.client.keyFile]) {
        assert.ok(path !== undefined && mountPaths.some((p) => path.startsWith(`${p}/`)), `${file}: ${path} is not mounted in the pod`);
      }
      assert.ok(config.server.tls.clientCAFile === '' || parsed.client.certFile !== undefined, `${file}: mTLS needs a client certificate`);
    }
  });

  it('curl reaches a port-forwarded port over HTTPS, on a route of that port, with the CA (and a client certificate for /debug)', () => {
    const curls = commands.filter((c) => c.line.startsWith('curl'));
    assert.ok(curls.length >= 2);
    for (const { file, line } of curls) {
      const args = words(line);
      const url = new URL(args.find((a) => a.startsWith('https://'))!);
      assert.equal(url.hostname, 'localhost');
      assert.ok(args.includes('--cacert'), `${file}: ${line}`);
      if (Number(url.port) === config.server.ops.port) assert.match(url.pathname, /^\/(readyz|healthz)$/, `${file}: only the probes answer without a certificate`);
      else {
        assert.equal(Number(url.port), config.server.port, `${file}: ${line}`);
        assert.match(url.pathname, /^\/debug\/(explain|ledger|freshness)$/);
        assert.ok(args.includes('--cert') && args.includes('--key'), `${file}: the extender port needs a client certificate`);
      }
    }
  });

  it('every PromQL query parses and reads only metrics kube-ledger exports, Node.js\'s selected by job', async () => {
    assert.ok(queries.length > 30);
    const defined = new Set((await createMetrics({ defaultMetrics: true }).registry.getMetricsAsJSON()).map((m) => m.name));
    for (const { file, query } of queries) {
      const names = [...query.matchAll(/\b(?:kube_ledger|process|nodejs)_[a-zA-Z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ''));
      assert.ok(names.length > 0 || /\bup\{/.test(query), `${file}: ${query}`);
      for (const name of names) assert.ok(defined.has(name), `${file}: ${name} is not a kube-ledger metric`);
      for (const selector of query.matchAll(/\b(?:process|nodejs|kube_ledger)_[a-zA-Z0-9_]+(\{[^}]*\})?/g)) {
        assert.match(selector[0], /job="kube-ledger"/, `${file}: ${selector[0]} selects no job`);
      }
    }
    const dir = mkdtempSync(join(tmpdir(), 'kube-ledger-runbooks-'));
    try {
      const rules = join(dir, 'runbook-queries.yml');
      writeFileSync(rules, stringify({ groups: [{ name: 'runbooks', rules: queries.map(({ query }, i) => ({ record: `runbook:query:${i}`, expr: query })) }] }));
      const result = promtool(['check', 'rules', rules]);
      assert.equal(result.status, 0, result.output);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
