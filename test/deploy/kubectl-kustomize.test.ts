/**
 * Every kustomization under deploy/ rendered by the real `kubectl kustomize` (what `kubectl apply -k` sends), and
 * compared object by object with the test renderer (kustomize.ts) the other deploy tests read: the same objects, the
 * same content, once kustomize's hash suffix is taken off the generated ConfigMaps' names and the references to them.
 * kubectl is on every machine the project runs on (.ci/install-tools.sh checks it); a missing kubectl is an error.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { DEPLOY_DIR, KUSTOMIZATIONS, render, type KubeObject } from './kustomize.js';

function kubectlKustomize(dir: string): KubeObject[] {
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 60_000 });
  if (result.error) throw new Error(`kubectl is not installed or did not run: ${result.error.message}`);
  assert.equal(result.status, 0, `kubectl kustomize ${dir}:\n${result.stderr}`);
  return parseAllDocuments(result.stdout).map((document) => document.toJS() as KubeObject).filter((object) => object !== null);
}

/** Names kustomize gave the generated ConfigMaps, each with the name it was generated from. */
function generatedNames(objects: KubeObject[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const object of objects) {
    const match = object.kind === 'ConfigMap' ? /^(.*)-[a-z0-9]{10}$/.exec(object.metadata.name) : null;
    if (match?.[1]) names.set(object.metadata.name, match[1]);
  }
  return names;
}

/** The object with every generated name replaced by the name it was generated from. */
function withoutHashes(object: KubeObject, names: Map<string, string>): unknown {
  return JSON.parse(JSON.stringify(object), (_key, value: unknown) => (typeof value === 'string' ? (names.get(value) ?? value) : value));
}

function identity(object: KubeObject): string {
  return `${object.apiVersion} ${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

describe('deploy/: kubectl kustomize renders every kustomization, as the tests read it', function () {
  this.timeout(60_000);
  for (const dir of KUSTOMIZATIONS) {
    it(`${dir}`, () => {
      const real = kubectlKustomize(join(DEPLOY_DIR, dir));
      const names = generatedNames(real);
      const byIdentity = new Map(render(join(DEPLOY_DIR, dir)).map((object) => [identity(object), object]));
      const realByIdentity = new Map(real.map((object) => [identity(withoutHashes(object, names) as KubeObject), withoutHashes(object, names)]));
      assert.deepEqual([...realByIdentity.keys()].sort(), [...byIdentity.keys()].sort());
      for (const [key, object] of realByIdentity) assert.deepEqual(object, byIdentity.get(key), key);
    });
  }
});
