import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadManifests, ManifestError } from '../../../src/cluster/snapshot/manifest-loader.js';
import type { PodObject } from '../../../src/ledger/objects.js';
import { podEntryFromObject } from '../../../src/ledger/pod-entry.js';
import { useTemporaryDirectory } from '../../support/temp-dir.js';

const NODE_YAML = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
`;

describe('manifest loader', () => {
  const dir = useTemporaryDirectory('kl-manifests-');

  it('reads multi-document YAML and ignores kinds the ledger does not use, naming them', async () => {
    const file = join(dir(), 'c.yaml');
    await writeFile(file, `${NODE_YAML}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}\n`);
    const loaded = await loadManifests(file);
    assert.equal(loaded.objects.Node.length, 1);
    assert.equal(loaded.objects.Pod.length, 1);
    assert.deepEqual(loaded.ignored, [`ConfigMap cm in ${file}`]);
  });

  it('reads PodDisruptionBudgets (policy/v1), which preemption counts', async () => {
    const file = join(dir(), 'pdb.yaml');
    await writeFile(file, 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: shop}\nspec: {minAvailable: 1, selector: {matchLabels: {app: web}}}\nstatus: {disruptionsAllowed: 0}\n');
    const loaded = await loadManifests(file);
    assert.deepEqual(loaded.objects.PodDisruptionBudget.map((p) => p.metadata.name), ['web']);
    assert.deepEqual(loaded.ignored, []);
  });

  it('flattens a v1 List as kubectl get -o yaml prints it', async () => {
    const file = join(dir(), 'list.yaml');
    await writeFile(file, `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: b}\n`);
    const loaded = await loadManifests(file);
    assert.deepEqual(loaded.objects.Node.map((n) => n.metadata.name), ['a', 'b']);
  });

  it('gives items of a typed list (PodList from the API) the kind of the list', async () => {
    const file = join(dir(), 'pods.json');
    await writeFile(file, JSON.stringify({ kind: 'PodList', apiVersion: 'v1', items: [{ metadata: { name: 'p1', namespace: 'x' } }] }));
    const loaded = await loadManifests(file);
    assert.equal(loaded.objects.Pod.length, 1);
    assert.equal((loaded.objects.Pod[0] as { kind?: string }).kind, 'Pod');
  });

  it('reads a JSON list in chunks exactly as a whole: order, kinds, ignored objects, duplicates across files', async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ apiVersion: 'v1', kind: i % 3 === 0 ? 'Node' : 'ConfigMap',
      metadata: { name: `o${i}`, labels: { text: 'ключ "в" 🚀'.repeat(i % 7) } } }));
    const file = join(dir(), 'a-big.json');
    await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 1));
    const loaded = await loadManifests(file);
    assert.deepEqual(loaded.objects.Node.map((n) => n.metadata.name), items.filter((o) => o.kind === 'Node').map((o) => o.metadata.name));
    assert.deepEqual(loaded.objects.Node[3]?.metadata.labels, items[9]?.metadata.labels);
    assert.equal(loaded.ignored.length, 200);
    await writeFile(join(dir(), 'b-again.json'), JSON.stringify({ kind: 'NodeList', items: [{ metadata: { name: 'o3' } }] }));
    await assert.rejects(loadManifests(dir()), /b-again\.json \(document 1, items\[0\]\): duplicate Node o3 \(also defined at .*a-big\.json \(document 1, items\[3\]\)\)/);
  });

  it('reports a JSON list broken after its first items as invalid JSON, as a whole-file parse does', async () => {
    const file = join(dir(), 'broken.json');
    await writeFile(file, `{"kind":"List","items":[${JSON.stringify({ kind: 'Node', metadata: { name: 'a' } })} {"kind":"Node"}]}`);
    await assert.rejects(loadManifests(file), (err: unknown) => err instanceof ManifestError && /invalid JSON/.test(err.message));
  });

  describe('a large JSON list (items parsed in groups of 64 KiB)', () => {
    // ~2.4 MB, one item a line as `kubectl get -o json | jq -c '.items[]'`-style tools and the bench's generator write.
    const pods = Array.from({ length: 6000 }, (_, i) => ({ apiVersion: 'v1', kind: 'Pod',
      metadata: { name: `p${i}`, namespace: 'ns', uid: `uid-${i}`, labels: { app: 'a' }, managedFields: [{ manager: 'x'.repeat(200) }] },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] } }));
    const listText = (items: string[]) => `{"apiVersion":"v1","kind":"List","items":[\n${items.join(',\n')}\n]}`;

    it('loads and trims every item as the whole-file parse would', async () => {
      const file = join(dir(), 'big.json');
      await writeFile(file, listText(pods.map((p) => JSON.stringify(p))));
      const loaded = await loadManifests(file, { trim: true });
      assert.equal(loaded.objects.Pod.length, pods.length);
      assert.deepEqual(loaded.objects.Pod.map((p) => p.metadata.name), pods.map((p) => p.metadata.name));
      const pod = loaded.objects.Pod[4321] as PodObject;
      assert.deepEqual(Object.keys(pod.metadata).sort(), ['labels', 'name', 'namespace', 'uid'], 'trimmed');
      assert.deepEqual(pod.spec?.containers, [{ name: 'c', resources: { requests: { cpu: '100m', memory: '128Mi' } } }], 'trimmed (no image)');
      assert.deepEqual(podEntryFromObject(pod).requests, new Map([['cpu', 100n], ['memory', 128n * 1024n * 1024n]]));
    });

    it('names the position of an invalid item and a duplicate deep inside a group', async () => {
      const file = join(dir(), 'big.json');
      const cases: Array<[number, string, RegExp]> = [
        [4321, '{"apiVersion":"v1","kind":"Pod","metadata":{"name":tru}}', /big\.json \(document 1, items\[4321\]\): invalid JSON/],
        [3999, JSON.stringify(pods[17]), /big\.json \(document 1, items\[3999\]\): duplicate Pod ns\/p17 \(also defined at .*big\.json \(document 1, items\[17\]\)\)/],
      ];
      for (const [at, item, pattern] of cases) {
        const items = pods.map((p) => JSON.stringify(p));
        items[at] = item;
        await writeFile(file, listText(items));
        await assert.rejects(loadManifests(file, { trim: true }), (err: unknown) => err instanceof ManifestError && pattern.test(err.message), String(pattern));
      }
    });

    it('quarantines an unreadable item deep inside a group, naming its position, and loads the rest', async () => {
      const file = join(dir(), 'big.json');
      const items = pods.map((p) => JSON.stringify(p));
      items[5000] = JSON.stringify({ ...pods[5000], spec: { nodeName: 'n1', containers: { name: 'c' } } });
      await writeFile(file, listText(items));
      const loaded = await loadManifests(file, { trim: true });
      assert.equal(loaded.objects.Pod.length, pods.length - 1);
      assert.deepEqual(loaded.quarantined.map((note) => [note.key, note.node]), [['ns/p5000', 'n1']]);
      assert.match(loaded.quarantined[0]!.reason, /spec\.containers: expected a list \(.*big\.json \(document 1, items\[5000\], Pod p5000\)\)/);
    });
  });

  it('reads every manifest of a directory tree in name order, skipping other files', async () => {
    await mkdir(join(dir(), 'sub'));
    await writeFile(join(dir(), 'b.yaml'), NODE_YAML.replace('n1', 'nb'));
    await writeFile(join(dir(), 'sub', 'a.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'na' } }));
    await writeFile(join(dir(), 'notes.txt'), 'not a manifest');
    const loaded = await loadManifests(dir());
    assert.deepEqual(loaded.objects.Node.map((n) => n.metadata.name).sort(), ['na', 'nb']);
    assert.equal(loaded.files.length, 2);
  });

  const broken: Array<[string, string, RegExp]> = [
    ['invalid YAML', 'kind: Node\nmetadata: {name: [}', /invalid YAML/],
    ['invalid JSON', '{"kind": "Node",', /invalid JSON/],
    ['duplicate object', `${NODE_YAML}---\n${NODE_YAML}`, /duplicate Node n1/],
    ['scalar document', 'just a string\n', /expected a Kubernetes object/],
    ['an object without a kind', 'apiVersion: v1\nmetadata: {name: x}\n', /object has no kind/],
  ];
  for (const [what, text, pattern] of broken) {
    it(`rejects ${what} with a message naming the problem`, async () => {
      const file = join(dir(), what.includes('JSON') ? 'x.json' : 'x.yaml');
      await writeFile(file, text);
      await assert.rejects(loadManifests(file), (err: unknown) => {
        assert.ok(err instanceof ManifestError, String(err));
        assert.match(err.message, pattern);
        return true;
      });
    });
  }

  // The admission rule every source applies (cluster/admission.ts): not a broken file, but an object dropped or held apart.
  const admitted: Array<[string, string, (loaded: Awaited<ReturnType<typeof loadManifests>>) => void]> = [
    ['a missing name is dropped and reported', 'apiVersion: v1\nkind: Node\nmetadata: {}\n', (loaded) => {
      assert.deepEqual(loaded.objects.Node, []);
      assert.match(loaded.dropped[0]?.message ?? '', /x\.yaml \(document 1, Node \(unnamed\)\): metadata\.name: required/);
    }],
    ['an apiVersion not the kind\'s is dropped as the wrong kind', 'apiVersion: v2\nkind: Pod\nmetadata: {name: p, namespace: d}\n', (loaded) => {
      assert.deepEqual(loaded.objects.Pod, []);
      assert.deepEqual(loaded.dropped.map((d) => [d.kind, d.reason]), [['Pod', 'wrong_kind']]);
    }],
    ['a malformed quantity is loaded (the ledger quarantines it)', 'apiVersion: v1\nkind: Node\nmetadata: {name: x}\nstatus: {allocatable: {cpu: "4 cores"}}\n', (loaded) => {
      assert.equal(loaded.objects.Node.length, 1);
    }],
    ['a PDB with a non-integer disruptionsAllowed is quarantined', 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: d}\nstatus: {disruptionsAllowed: "1"}\n', (loaded) => {
      assert.match(loaded.quarantined[0]?.reason ?? '', /status\.disruptionsAllowed: expected an integer \(.*PodDisruptionBudget b\)/);
    }],
    ['a PDB with a list as selector is quarantined', 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: d}\nspec: {selector: [app]}\n', (loaded) => {
      assert.match(loaded.quarantined[0]?.reason ?? '', /spec\.selector: expected an object/);
    }],
  ];
  for (const [what, text, check] of admitted) {
    it(what, async () => {
      const file = join(dir(), 'x.yaml');
      await writeFile(file, text);
      check(await loadManifests(file));
    });
  }
});
