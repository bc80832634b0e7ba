/**
 * What the documentation tells a reader to type or set exists: every `npm run` script in package.json, every
 * `kube-ledger` command line accepted by the CLI's own parsers (serving, `nominations clear`, `explain`, `ledger`),
 * every flag of a script known to that script's argument parser, every configuration key in the schema, every
 * KUBE_LEDGER_* variable read by the code, and every repository path present. The README's first section shows the
 * two set-up commands and nothing else.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCliArguments } from '../../src/cli/debug-commands.js';
import { parseCommandLine } from '../../src/config/cli.js';
import { envName } from '../../src/config/load-config.js';
import { DEPRECATED_FIELDS, FIELDS } from '../../src/config/schema.js';
import { codeSpans, markdownFiles, readMarkdown, REPO_ROOT, shownCommands, type MarkdownDocument, type ShownCommand } from './markdown.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const NPM_BUILTINS = new Set(['ci', 'install', 'test', 'start', 'pack', 'version']);

/** A documented placeholder such as `[--node NAME]` or `FILE_OR_DIR` is typed without its brackets. */
function typed(words: string[]): string[] {
  return words.map((word) => word.replace(/^\[|\]$/g, '')).filter((word) => word !== '' && word !== '...' && word !== '…');
}

/** Why a `kube-ledger` command line would be refused by the CLI, or undefined when it parses. */
function kubeLedgerRefusal(args: string[]): string | undefined {
  try {
    if (args[0] === 'explain' || args[0] === 'ledger') parseCliArguments(typed(args));
    else parseCommandLine(typed(args));
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The source file a script runs (`tsx test/bench/run.ts` → that file), or undefined for a tool. */
function scriptSource(script: string): string | undefined {
  const file = /(?:tsx|node)\s+(?:--\S+\s+)*(\S+\.ts)\b/.exec(pkg.scripts[script] ?? '')?.[1];
  return file && existsSync(join(REPO_ROOT, file)) ? readFileSync(join(REPO_ROOT, file), 'utf8') : undefined;
}

function flagKnownTo(source: string, flag: string): boolean {
  const name = flag.replace(/^--/, '').replace(/=.*$/, '');
  return source.includes(`'--${name}'`) || new RegExp(`['"]?${name}['"]?\\s*:\\s*\\{`).test(source);
}

/** Problems with one shown command; commands of other tools (curl, kubectl apply, docker) are not checked. */
function commandProblems(command: ShownCommand): string[] {
  const words = command.words;
  const at = `${command.where}: ${words.join(' ')}`;
  const problems: string[] = [];
  // `kubectl exec ... -- kube-ledger explain ...` runs kube-ledger inside the pod.
  const dash = words.indexOf('--');
  if (words[0] === 'kubectl' && words[dash + 1] === 'kube-ledger') return commandProblems({ words: words.slice(dash + 1), where: command.where });
  if (words[0] === 'npm') {
    const [, verb, script] = words;
    if (verb === 'run') {
      if (script === undefined || !(script in pkg.scripts)) return [`${at}: no script "${script}" in package.json`];
      const flags = dash >= 0 ? words.slice(dash + 1).filter((w) => /^\[?--[a-z]/.test(w)).map((w) => w.replace(/^\[/, '')) : [];
      const source = scriptSource(script);
      if (flags.length > 0 && source === undefined) problems.push(`${at}: flags given to "${script}", which runs no source file to check them against`);
      for (const flag of flags) if (source !== undefined && !flagKnownTo(source, flag)) problems.push(`${at}: ${flag} is not an option of npm run ${script}`);
      return problems;
    }
    if (verb === 'start' && dash >= 0) {
      const refusal = kubeLedgerRefusal(words.slice(dash + 1));
      return refusal === undefined ? [] : [`${at}: ${refusal}`];
    }
    if (verb !== undefined && !NPM_BUILTINS.has(verb)) problems.push(`${at}: npm ${verb} is not a command the docs should need`);
    return problems;
  }
  const args = words[0] === 'npx' && words[1] === 'kube-ledger' ? words.slice(2)
    : words[0] === 'kube-ledger' ? words.slice(1)
    : words[0] === 'node' && /(?:dist\/main\.js|bin\/kube-ledger\.js)$/.test(words[1] ?? '') ? words.slice(2)
    : undefined;
  if (args === undefined) return [];
  const refusal = kubeLedgerRefusal(args);
  return refusal === undefined ? [] : [`${at}: ${refusal}`];
}

const CONFIG_ROOTS = [...new Set(FIELDS.map((f) => f.path.split('.')[0]!))];
const KEY_PATTERN = new RegExp(`(?<![\\w./-])(?:${CONFIG_ROOTS.join('|')})\\.[A-Za-z][A-Za-z0-9]*(?:\\.[A-Za-z][A-Za-z0-9]*)*(?:\\.\\*)?(?![\\w/-])`, 'g');
const KNOWN_PATHS = [...FIELDS, ...DEPRECATED_FIELDS].map((f) => f.path);

/** A documented configuration key: a key, a section of keys, or `section.*`. */
function knownKey(text: string): boolean {
  const path = text.replace(/\.\*$/, '');
  return KNOWN_PATHS.some((known) => known === path || known.startsWith(`${path}.`));
}

/** The environment variables the code reads besides the configuration keys' (a test below finds each in src/). */
const OTHER_VARIABLES = new Set(['KUBE_LEDGER_CONFIG', 'KUBE_LEDGER_SERVER', 'KUBE_LEDGER_REVISION']);
const KNOWN_VARIABLES = new Set([...KNOWN_PATHS.map(envName), ...OTHER_VARIABLES]);

/** A path in the repository; the docs also name files under src/ without that prefix (`config/cli.ts`). */
const REPOSITORY_PATH = /^(?:src|test|deploy|config|docs|bin|\.ci)\/[\w./-]*$/;
const pathExists = (path: string): boolean => existsSync(join(REPO_ROOT, path)) || existsSync(join(REPO_ROOT, 'src', path));

function spanProblems(doc: MarkdownDocument): string[] {
  const problems: string[] = [];
  for (const span of codeSpans(doc)) {
    const at = `${doc.path}:${span.line}`;
    for (const key of span.text.matchAll(KEY_PATTERN)) {
      if (!knownKey(key[0])) problems.push(`${at}: \`${key[0]}\` is not a configuration key (src/config/schema.ts)`);
    }
    for (const variable of span.text.matchAll(/\bKUBE_LEDGER_[A-Z0-9_]+\b/g)) {
      if (!KNOWN_VARIABLES.has(variable[0])) problems.push(`${at}: ${variable[0]} is read by nothing`);
    }
    const path = span.text.replace(/:\d+$/, '');
    if (REPOSITORY_PATH.test(path) && !path.includes('*') && !pathExists(path)) {
      problems.push(`${at}: \`${path}\` does not exist`);
    }
  }
  return problems;
}

describe('documented commands, flags and settings', () => {
  const files = markdownFiles();

  for (const file of files) {
    it(`${file}: every command, flag, setting and path it shows exists`, () => {
      const doc = readMarkdown(file);
      assert.deepEqual([...shownCommands(doc).flatMap(commandProblems), ...spanProblems(doc)], []);
    });
  }

  it('the README opens with exactly the two set-up commands: run the extender, run the whole suite', () => {
    const readme = readMarkdown('README.md');
    const firstSection = readme.prose.findIndex((line) => line.startsWith('## '));
    const nextSection = readme.prose.findIndex((line, i) => i > firstSection && line.startsWith('## '));
    const blocks = readme.blocks.filter((b) => b.line > firstSection && b.line < nextSection);
    assert.equal(blocks.length, 1, 'one code block in the first section');
    const commands = blocks[0]!.lines.map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean);
    assert.deepEqual(commands, ['npm ci && npm start', 'npm ci && npm test']);
    assert.match(pkg.scripts['start']!, /src\/main\.ts/);
    assert.match(pkg.scripts['test']!, /mocha 'test\/\*\*\/\*\.test\.ts'/);
  });

  describe('the checker', () => {
    it('refuses an unknown flag, subcommand or script and accepts the real ones', () => {
      const check = (line: string): string[] => commandProblems({ words: line.split(' '), where: 'x' });
      assert.deepEqual(check('npx kube-ledger explain batch/low-fill --output json'), []);
      assert.deepEqual(check('npx kube-ledger ledger [--node NAME]'), []);
      assert.deepEqual(check('npm start -- --cluster FILE --port 8888'), []);
      assert.deepEqual(check('kube-ledger nominations clear --kubeconfig F'), []);
      assert.deepEqual(check('npm run bench -- --quick --check'), []);
      assert.deepEqual(check('npm run soak -- --minutes 5'), []);
      assert.equal(check('npx kube-ledger --no-such-flag').length, 1);
      assert.equal(check('npx kube-ledger explain batch/low-fill --node x').length, 1);
      assert.equal(check('npm start -- --prot 8888').length, 1);
      assert.equal(check('npm run no-such-script').length, 1);
      assert.equal(check('npm run bench -- --fast').length, 1);
    });

    it('knows only environment variables that the sources name', () => {
      const sources = readdirSync(join(REPO_ROOT, 'src'), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => readFileSync(join(REPO_ROOT, 'src', file), 'utf8'))
        .join('\n');
      for (const variable of OTHER_VARIABLES) assert.ok(sources.includes(`'${variable}'`), `${variable} is named nowhere in src/`);
    });

    it('refuses an unknown setting, variable or path and accepts keys, sections and wildcards', () => {
      const doc = (text: string): MarkdownDocument => ({ path: 'x.md', prose: [text], blocks: [] });
      assert.deepEqual(spanProblems(doc('`dra.admitNewClaims: false`, `freshness.requestTimeouts.*`, `server.tls`, `KUBE_LEDGER_SERVER_PORT`, `src/main.ts`, `docs/dra.md`')), []);
      assert.equal(spanProblems(doc('`dra.admitNewClaim: false`')).length, 1);
      assert.equal(spanProblems(doc('`KUBE_LEDGER_NO_SUCH`')).length, 1);
      assert.equal(spanProblems(doc('`src/no/such.ts`')).length, 1);
    });
  });
});
