#!/usr/bin/env node
// The `kube-ledger` command (npx kube-ledger; /usr/local/bin/kube-ledger in the image). It never runs code older than
// the sources: in a checkout (src/ present) the compiled dist/ runs only while every file of it is newer than every
// file under src/; otherwise the TypeScript entry runs through tsx (a dev dependency). The image ships dist/ without
// src/, so it always runs dist/. main handles every subcommand, `explain` and `ledger` included.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceEntry = join(root, 'src', 'main.ts');
const compiledEntry = join(root, 'dist', 'main.js');

/** The oldest and newest modification time of the files under `dir`. */
function modificationSpan(dir) {
  let oldest = Infinity;
  let newest = -Infinity;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const mtime = statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs;
    oldest = Math.min(oldest, mtime);
    newest = Math.max(newest, mtime);
  }
  return { oldest, newest };
}

function compiledIsCurrent() {
  if (!existsSync(compiledEntry)) return false;
  if (!existsSync(sourceEntry)) return true;
  return modificationSpan(join(root, 'dist')).oldest > modificationSpan(join(root, 'src')).newest;
}

if (compiledIsCurrent()) {
  await import(pathToFileURL(compiledEntry).href);
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    const why = existsSync(compiledEntry) ? 'dist/ is older than src/' : 'there is no dist/';
    process.stderr.write(`kube-ledger: ${why} and tsx is not installed: run \`npm ci\` (to run the sources) or \`npm run build\`\n`);
    process.exit(1);
  }
  register();
  await import(pathToFileURL(sourceEntry).href);
}
