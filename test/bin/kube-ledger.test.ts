/**
 * `bin/kube-ledger.js` (what `npx kube-ledger` and the image's `kube-ledger` run) never runs code older than the
 * sources. Each case lays out a package like this repository in a temporary directory — the real bin script, a
 * src/main.ts and a dist/main.js that say which one ran, modification times set explicitly — and runs the script.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTemporaryDirectory } from '../support/temp-dir.js';

const REPO = join(import.meta.dirname, '..', '..');
const OLD = new Date('2026-01-01T00:00:00Z');
const NEW = new Date('2026-01-02T00:00:00Z');

interface Layout {
  /** Files under src/ with their modification time. */
  src?: Record<string, Date>;
  /** Files under dist/ with their modification time. */
  dist?: Record<string, Date>;
  /** Whether tsx can be resolved (node_modules present). */
  tsx?: boolean;
}

function runIn(dir: string, layout: Layout, args: string[] = ['hello']): { status: number | null; stdout: string; stderr: string } {
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(REPO, 'bin', 'kube-ledger.js'), join(dir, 'bin', 'kube-ledger.js'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'layout', type: 'module' }));
  if (layout.tsx) symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const [tree, files] of [['src', layout.src], ['dist', layout.dist]] as const) {
    for (const [file, mtime] of Object.entries(files ?? {})) {
      const path = join(dir, tree, file);
      mkdirSync(join(path, '..'), { recursive: true });
      // main.ts is TypeScript (a type annotation), so it runs only through tsx.
      const text = file === 'main.ts' ? "const from: string = 'sources';\nconsole.log(`${from} ${process.argv.slice(2).join(' ')}`);\n"
        : file === 'main.js' ? "console.log(`dist ${process.argv.slice(2).join(' ')}`);\n"
        : '// another file\n';
      writeFileSync(path, text);
      utimesSync(path, mtime, mtime);
    }
  }
  const result = spawnSync(process.execPath, [join(dir, 'bin', 'kube-ledger.js'), ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('bin/kube-ledger.js', function () {
  this.timeout(60_000);
  const dir = useTemporaryDirectory('kl-bin-');
  const run = (layout: Layout): ReturnType<typeof runIn> => runIn(dir(), layout);

  it('runs dist/ when every compiled file is newer than every source file', () => {
    const out = run({ src: { 'main.ts': OLD, 'ledger/x.ts': OLD }, dist: { 'main.js': NEW, 'ledger/x.js': NEW }, tsx: true });
    assert.equal(out.stdout, 'dist hello\n', out.stderr);
  });

  it('runs the sources through tsx when any source file is newer than dist/', () => {
    const out = run({ src: { 'main.ts': OLD, 'ledger/x.ts': NEW }, dist: { 'main.js': OLD, 'ledger/x.js': OLD }, tsx: true });
    assert.equal(out.stdout, 'sources hello\n', out.stderr);
  });

  it('runs the sources when a compiled file is older than a source file, even if dist/main.js is newer', () => {
    const out = run({ src: { 'main.ts': NEW }, dist: { 'main.js': new Date('2026-01-03T00:00:00Z'), 'ledger/x.js': OLD }, tsx: true });
    assert.equal(out.stdout, 'sources hello\n', out.stderr);
  });

  it('runs the sources when there is no dist/', () => {
    const out = run({ src: { 'main.ts': OLD }, tsx: true });
    assert.equal(out.stdout, 'sources hello\n', out.stderr);
  });

  it('runs dist/ where there are no sources (the image)', () => {
    const out = run({ dist: { 'main.js': OLD }, tsx: false });
    assert.equal(out.stdout, 'dist hello\n', out.stderr);
  });

  it('refuses a stale dist/ when tsx is missing, saying what to run', () => {
    const out = run({ src: { 'main.ts': NEW }, dist: { 'main.js': OLD }, tsx: false });
    assert.equal(out.status, 1);
    assert.equal(out.stdout, '');
    assert.match(out.stderr, /dist\/ is older than src\/ and tsx is not installed: run `npm ci` .* or `npm run build`/);
  });

  it('in this repository, prints the version of package.json', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const result = spawnSync(process.execPath, [join(REPO, 'bin', 'kube-ledger.js'), '--version'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(result.stdout, `kube-ledger ${pkg.version}\n`, result.stderr);
    assert.equal(result.status, 0);
  });
});
