#!/usr/bin/env node
// Runs the compiled extender (npm run build; what the image ships, under plain node) or, in a source checkout, the
// TypeScript entry through tsx (a dev dependency). main handles every subcommand, `explain` and `ledger` included.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'main.js');
if (existsSync(compiled)) {
  await import(compiled);
} else {
  await import('tsx/esm/api').then(({ register }) => register());
  await import(join(root, 'src', 'main.ts'));
}
