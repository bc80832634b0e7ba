/**
 * The version lives in package.json. Wherever the documentation, the Dockerfile or the manifests name a released
 * image tag (`kube-ledger:X.Y.Z`, the kustomization's `newTag`), it is that version, and CHANGELOG.md has an entry for
 * it; the image label's default and `--version` are checked in test/image and test/app.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownFiles, REPO_ROOT } from './markdown.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
const read = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');

describe('one version, package.json\'s', () => {
  it('is a semantic version', () => {
    assert.match(pkg.version, /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/);
  });

  it('every kube-ledger image tag in the docs, the Dockerfile and the manifests is package.json\'s version', () => {
    const files = [...markdownFiles().filter((f) => f !== 'CHANGELOG.md' && f !== 'docs/benchmark-history.md'), 'Dockerfile', 'deploy/base/deployment.yaml'];
    const wrong: string[] = [];
    for (const file of files) {
      for (const match of read(file).matchAll(/kube-ledger:(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)/g)) {
        if (match[1] !== pkg.version) wrong.push(`${file}: kube-ledger:${match[1]}`);
      }
    }
    const newTag = /newTag:\s*"?([^"\s]+)"?/.exec(read('deploy/base/kustomization.yaml'))?.[1];
    if (newTag !== pkg.version) wrong.push(`deploy/base/kustomization.yaml: newTag ${newTag}`);
    assert.deepEqual(wrong, [], `package.json says ${pkg.version}`);
  });

  it('CHANGELOG.md has an entry for it, released or unreleased', () => {
    const headings = [...read('CHANGELOG.md').matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2}|Unreleased)$/gm)];
    assert.ok(headings.length > 0, 'Keep a Changelog headings: ## [X.Y.Z] - YYYY-MM-DD or - Unreleased');
    assert.ok(headings.some((h) => h[1] === pkg.version), `no CHANGELOG entry for ${pkg.version}`);
    const unreleased = headings.filter((h) => h[2] === 'Unreleased');
    assert.ok(unreleased.length <= 1 && (unreleased.length === 0 || headings[0] === unreleased[0]), 'at most one Unreleased entry, on top');
  });
});
