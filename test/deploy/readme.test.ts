import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOY_DIR } from './kustomize.js';

describe('deploy/README.md', () => {
  const readme = readFileSync(join(DEPLOY_DIR, 'README.md'), 'utf8');

  it('names only files and directories that exist', () => {
    const paths = new Set<string>();
    for (const match of readme.matchAll(/`((?:deploy\/|base\/|nominator\/|monitoring\/|overlays\/|scheduler\/|config\/)[^`\s]*)`/g)) {
      paths.add(match[1]!.replace(/^deploy\//, ''));
    }
    assert.ok(paths.size > 10, `found only ${paths.size} paths`);
    for (const path of paths) {
      const candidates = path.startsWith('config/') ? [join(DEPLOY_DIR, '..', path)] : [join(DEPLOY_DIR, path), join(DEPLOY_DIR, '..', path)];
      const expanded = candidates.map((c) => c.replace(/\*\.yaml$/, ''));
      assert.ok(expanded.some((c) => existsSync(c)), `deploy/README.md names ${path}, which does not exist`);
    }
  });

  it('shows the install commands for the production overlay and the scheduler', () => {
    assert.match(readme, /kubectl apply -k deploy\/overlays\/production/);
    assert.match(readme, /kubectl apply -k deploy\/scheduler/);
  });
});
