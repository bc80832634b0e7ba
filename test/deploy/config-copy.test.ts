import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEPLOY_DIR } from './kustomize.js';

const REPO_CONFIG = join(DEPLOY_DIR, '..', 'config', 'extender.yaml');

/** Dotted paths of every leaf key, e.g. server.tls.certFile. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([key, child]) => keyPaths(child, prefix ? `${prefix}.${key}` : key));
}

describe('deploy extender configuration files', () => {
  it('deploy/base/extender.yaml is a byte-for-byte copy of config/extender.yaml', () => {
    const copy = readFileSync(join(DEPLOY_DIR, 'base', 'extender.yaml'));
    const original = readFileSync(REPO_CONFIG);
    assert.ok(copy.equals(original), 'run: cp config/extender.yaml deploy/base/extender.yaml');
  });

  for (const overlay of ['dev', 'production']) {
    it(`overlays/${overlay}/extender.yaml has exactly the keys of config/extender.yaml`, () => {
      const expected = keyPaths(parse(readFileSync(REPO_CONFIG, 'utf8'))).sort();
      const actual = keyPaths(parse(readFileSync(join(DEPLOY_DIR, 'overlays', overlay, 'extender.yaml'), 'utf8'))).sort();
      assert.deepEqual(actual, expected);
    });
  }
});
