/**
 * The snapshot load's duplicate check by hash (seen-hashes.ts) and its exact second pass (manifest-loader.ts): a hash
 * seen twice only holds an object back, and the second pass decides exactly, so a collision never refuses a snapshot
 * and never loses an object, while a real duplicate is reported with both positions as before.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadManifests } from '../../../src/cluster/snapshot/manifest-loader.js';
import { hashId, SeenHashes, type IdHash } from '../../../src/cluster/snapshot/seen-hashes.js';
import { useTemporaryDirectory } from '../../support/temp-dir.js';

const pod = (ns: string, name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, uid: `${ns}-${name}` },
  spec: { containers: [{ name: 'c' }] } });

describe('snapshot duplicate check by hash', () => {
  const dir = useTemporaryDirectory('kl-seen-');

  it('reports a hash new once and seen after, across table growth', () => {
    const seen = new SeenHashes();
    const ids = Array.from({ length: 100_000 }, (_, i) => `Pod ns-${i % 97}/web-${i}`);
    assert.ok(ids.every((id) => seen.add(hashId(id))), 'every distinct id is new');
    assert.ok(ids.every((id) => !seen.add(hashId(id))), 'every id added before is seen');
    assert.notDeepEqual(hashId('Pod a/b'), hashId('Pod a/c'));
  });

  for (const [label, idHash] of [
    ['every id colliding', (): IdHash => [7, 7]],
    ['ids colliding by length', (id: string): IdHash => [id.length, 1]],
  ] as const) {
    it(`with ${label}, loads every object exactly once`, async () => {
      const items = Array.from({ length: 400 }, (_, i) => pod(`ns-${i % 5}`, `p-${i}`));
      await writeFile(join(dir(), 'a.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: items.slice(0, 250) }));
      await writeFile(join(dir(), 'b.yaml'), items.slice(250).map((p) => JSON.stringify(p)).join('\n---\n'));
      const honest = await loadManifests(dir());
      const colliding = await loadManifests(dir(), { idHash });
      const keys = (pods: Array<{ metadata: { namespace?: string; name?: string } }>) =>
        pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
      assert.equal(colliding.objects.Pod.length, 400);
      assert.deepEqual(keys(colliding.objects.Pod), keys(honest.objects.Pod));
    });

    it(`with ${label}, still names a real duplicate with both positions`, async () => {
      const items = Array.from({ length: 50 }, (_, i) => pod('ns', `p-${i}`));
      await writeFile(join(dir(), 'a.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...items, pod('ns', 'p-17')] }));
      await assert.rejects(loadManifests(dir(), { idHash }),
        /a\.json \(document 1, items\[50\]\): duplicate Pod ns\/p-17 \(also defined at .*a\.json \(document 1, items\[17\]\)\)/);
    });
  }
});
