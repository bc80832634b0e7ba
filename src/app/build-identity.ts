/**
 * The running build's identity for `--version` and `kube_ledger_build_info`. The version is read from package.json,
 * the one place it is kept; the revision is stamped into the image's environment (`KUBE_LEDGER_REVISION`, from the
 * Dockerfile's `REVISION` build argument).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildIdentity } from '../observability/build-info-metrics.js';

/** package.json beside src/ (a checkout) or dist/ (the image): two levels above this file either way. */
const PACKAGE_JSON = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json');

export const REVISION_VARIABLE = 'KUBE_LEDGER_REVISION';

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version?: unknown };
  if (typeof pkg.version !== 'string' || pkg.version === '') throw new Error(`${PACKAGE_JSON} has no version`);
  return pkg.version;
}

export function buildIdentity(env: NodeJS.ProcessEnv = process.env): BuildIdentity {
  return { version: packageVersion(), revision: env[REVISION_VARIABLE] || 'unknown', nodeVersion: process.version };
}
