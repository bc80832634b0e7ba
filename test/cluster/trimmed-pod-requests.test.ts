/**
 * Both sources hand the ledger plain trimmed pods (cluster/admission.ts), and the ledger builds each pod's entry
 * (ledger/pod-entry.ts) from what the trim left. That is exact only if the trim keeps every field the requests rule
 * reads, at the same paths: the same requests, or the same error naming the same field (the error decides the pod's
 * quarantine), which the property below holds it to.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { admit } from '../../src/cluster/admission.js';
import { loadManifests } from '../../src/cluster/snapshot/manifest-loader.js';
import { trimPod } from '../../src/cluster/trim.js';
import { ClusterLedger } from '../../src/ledger/cluster-ledger.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { podEntryFromObject } from '../../src/ledger/pod-entry.js';
import { podWithResources } from '../support/pod-resources-arbitrary.js';
import { useTemporaryDirectory } from '../support/temp-dir.js';

/** The pod with one quantity made unreadable, in a field the rule reads (a container request or a status list). */
function corrupted(pod: PodObject, where: 'container' | 'status'): PodObject {
  const copy = structuredClone(pod);
  const first = copy.spec?.containers?.[0];
  if (where === 'container' && first) first.resources = { ...first.resources, requests: { ...first.resources?.requests, cpu: '1 core' } };
  if (where === 'status' && first) copy.status = { ...copy.status, containerStatuses: [{ name: first.name, allocatedResources: { memory: '12 GB' } }] };
  return copy;
}

function requestsOf(pod: PodObject): { requests: ReadonlyMap<string, bigint> } | { problem: string } {
  const entry = podEntryFromObject(pod);
  return entry.requestsError === undefined ? { requests: entry.requests } : { problem: entry.requestsError };
}

/** What the ledger computes of a pod: its entry without the object it was read from. */
function entryFacts(pod: PodObject): Record<string, unknown> {
  const { object: _object, ...facts } = { ...podEntryFromObject(pod) };
  return facts;
}

describe('trimmed pods and their requests', () => {
  it('the trim keeps what the requests rule reads: same requests, or the same problem naming the same field (property)', () => {
    fc.assert(fc.property(podWithResources, fc.constantFrom('none', 'container', 'status'), (generated, corrupt) => {
      const pod = corrupt === 'none' ? generated : corrupted(generated, corrupt);
      assert.deepEqual(requestsOf(trimPod(pod)), requestsOf(pod));
    }), { numRuns: 500 });
  });

  it('an admitted pod is a plain object: what it shows is all it carries (no hidden property)', () => {
    const bound = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: '7' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] }, status: { phase: 'Running' } };
    const admitted = admit('Pod', bound);
    assert.equal(admitted.verdict, 'admit');
    const object = (admitted as { object: PodObject }).object;
    assert.deepEqual(Reflect.ownKeys(object), Object.keys(object));
    assert.deepEqual(object, trimPod(bound as PodObject));
  });

  describe('through the loader', () => {
    const dir = useTemporaryDirectory('kl-requests-trim-');

    it('loaded pods are their trims: the ledger builds the same entries from them, bound or pending', async () => {
      const samples = fc.sample(podWithResources, { numRuns: 200, seed: 7 });
      const items = samples.map((pod, i) => ({ apiVersion: 'v1', kind: 'Pod', ...pod, metadata: { name: `p${i}`, namespace: 'ns' },
        spec: { ...pod.spec, ...(i % 2 === 0 ? { nodeName: 'n1' } : {}) } }));
      const file = join(dir(), 'pods.json');
      await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
      const loaded = await loadManifests(file, { trim: true });
      assert.equal(loaded.objects.Pod.length, items.length);
      (loaded.objects.Pod as PodObject[]).forEach((pod, i) => {
        assert.deepEqual(entryFacts(pod), entryFacts(trimPod(items[i] as PodObject)), pod.metadata.name);
      });
    });

    it('a bad quantity quarantines the pod with the same reason whether the loader trims or not', async () => {
      const file = join(dir(), 'pods.json');
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' },
        spec: { nodeName: 'n1', containers: [{ name: 'a' }, { name: 'b', resources: { requests: { memory: '1 GB' } } }] } };
      await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod] }));
      const reasons = await Promise.all([loadManifests(file, { trim: true }), loadManifests(file)].map(async (loading) => {
        const ledger = new ClusterLedger();
        ledger.apply({ type: 'replaced', kind: 'Pod', objects: (await loading).objects.Pod });
        assert.equal(ledger.podByKey('ns/p'), undefined, 'not counted');
        return ledger.quarantinedObject('Pod', 'ns/p')?.reason;
      }));
      assert.match(reasons[0] ?? '', /spec\.containers\[1\]\.resources\.requests\.memory/);
      assert.equal(reasons[0], reasons[1]);
    });
  });
});
