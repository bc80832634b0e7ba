/**
 * A snapshot pod's requests are computed once: the loader checks them on the trimmed pod and builds the pod's ledger
 * entry from that result at once, handing on what the ledger keeps of the pod. That is exact only if the trim keeps
 * every field the requests rule reads, at the same paths (same amounts, same error naming the same field), which the
 * property below holds it to, and if the prebuilt entry is the one the ledger would build from the trimmed pod.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { loadManifests } from '../../../src/cluster/snapshot/manifest-loader.js';
import { checkedPodRequests } from '../../../src/cluster/snapshot/manifest-validation.js';
import { trimPod } from '../../../src/cluster/trim.js';
import type { PodObject } from '../../../src/ledger/objects.js';
import { podEntryFromObject, prebuildPodEntry } from '../../../src/ledger/pod-entry.js';
import { effectivePodRequests } from '../../../src/ledger/pod-requests.js';
import { podWithResources } from '../../support/pod-resources-arbitrary.js';
import { useTemporaryDirectory } from '../../support/temp-dir.js';

/** The pod with one quantity made unreadable, in a field the rule reads (a container request or a status list). */
function corrupted(pod: PodObject, where: 'container' | 'status'): PodObject {
  const copy = structuredClone(pod);
  const first = copy.spec?.containers?.[0];
  if (where === 'container' && first) first.resources = { ...first.resources, requests: { ...first.resources?.requests, cpu: '1 core' } };
  if (where === 'status' && first) copy.status = { ...copy.status, containerStatuses: [{ name: first.name, allocatedResources: { memory: '12 GB' } }] };
  return copy;
}

describe('snapshot pod requests computed once', () => {
  it('the trim keeps what the requests rule reads: same requests, or the same problem naming the same field (property)', () => {
    fc.assert(fc.property(podWithResources, fc.constantFrom('none', 'container', 'status'), (generated, corrupt) => {
      const pod = corrupt === 'none' ? generated : corrupted(generated, corrupt);
      assert.deepEqual(checkedPodRequests(trimPod(pod)), checkedPodRequests(pod));
    }), { numRuns: 500 });
  });

  it('the ledger takes a prebuilt entry once, equal to the one it builds from the trimmed pod; the next is built afresh', () => {
    const bound: PodObject = { metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: '7' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] }, status: { phase: 'Running' } };
    const trimmed = trimPod(bound);
    const handedOn = prebuildPodEntry(trimmed, effectivePodRequests(trimmed));
    assert.equal(handedOn.spec?.containers, undefined, 'a bound pod is handed on as the ledger keeps it');
    const prebuilt = podEntryFromObject(handedOn);
    assert.deepEqual(prebuilt, podEntryFromObject(trimPod(bound)));
    assert.equal(prebuilt.object, handedOn);
    assert.notEqual(podEntryFromObject(handedOn), prebuilt);
  });

  it('no copy of a handed-on pod carries its entry, and the entry shows in none of its keys or its JSON', () => {
    const bound: PodObject = { metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: '7' },
      spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] }, status: { phase: 'Running' } };
    const trimmed = trimPod(bound);
    const handedOn = prebuildPodEntry(trimmed, effectivePodRequests(trimmed));
    const json = JSON.stringify(handedOn);
    const keys = Reflect.ownKeys({ ...handedOn });
    // A copy changed after the hand-over (here: another node) must get an entry built from what it says.
    const copy: PodObject = { ...handedOn, spec: { ...handedOn.spec, nodeName: 'n2' } };
    assert.equal(podEntryFromObject(copy).nodeName, 'n2');
    assert.deepEqual(keys, Object.keys(handedOn), 'a spread copies no hidden key');
    assert.equal(podEntryFromObject(handedOn).nodeName, 'n1', 'the original still hands its entry over');
    assert.equal(JSON.stringify(handedOn), json);
  });

  it('a second instance of the module takes the entry the first built (the kube runtime is imported apart from the ledger)', async () => {
    const second = (await import(`../../../src/ledger/pod-entry.ts?instance=${Date.now()}`)) as typeof import('../../../src/ledger/pod-entry.js');
    assert.notEqual(second.podEntryFromObject, podEntryFromObject, 'two instances');
    const bound: PodObject = { metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { nodeName: 'n1', containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] } };
    const handedOn = second.withPrebuiltEntry(trimPod(bound));
    assert.deepEqual(podEntryFromObject(handedOn).requests, new Map([['cpu', 2000n]]));
  });

  it('a pending pod, and a pod with pod-level resources, are handed on whole (their containers are still read)', () => {
    const pending: PodObject = { metadata: { name: 'q', namespace: 'ns' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } };
    const podLevel: PodObject = { metadata: { name: 'r', namespace: 'ns' },
      spec: { nodeName: 'n1', resources: { requests: { cpu: '2' } }, containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } };
    for (const pod of [pending, podLevel]) {
      const trimmed = trimPod(pod);
      assert.equal(prebuildPodEntry(trimmed, effectivePodRequests(trimmed)), trimmed, pod.metadata.name);
      assert.deepEqual(podEntryFromObject(trimmed), podEntryFromObject(trimPod(pod)), pod.metadata.name);
    }
  });

  describe('through the loader', () => {
    const dir = useTemporaryDirectory('kl-requests-once-');

    it('loaded pods get the entries the ledger builds from each trimmed pod, bound or pending', async () => {
      const samples = fc.sample(podWithResources, { numRuns: 200, seed: 7 });
      const items = samples.map((pod, i) => ({ apiVersion: 'v1', kind: 'Pod', ...pod, metadata: { name: `p${i}`, namespace: 'ns' },
        spec: { ...pod.spec, ...(i % 2 === 0 ? { nodeName: 'n1' } : {}) } }));
      const file = join(dir(), 'pods.json');
      await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
      const loaded = await loadManifests(file, { trim: true });
      assert.equal(loaded.objects.Pod.length, items.length);
      (loaded.objects.Pod as PodObject[]).forEach((pod, i) => {
        assert.deepEqual(podEntryFromObject(pod), podEntryFromObject(trimPod(items[i] as PodObject)), pod.metadata.name);
      });
    });

    it('a bad quantity is reported with the same message whether the loader trims or not', async () => {
      const file = join(dir(), 'pods.json');
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' },
        spec: { containers: [{ name: 'a' }, { name: 'b', resources: { requests: { memory: '1 GB' } } }] } };
      await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod] }));
      const messages = await Promise.all([loadManifests(file, { trim: true }), loadManifests(file)].map((p) => p.then(() => 'loaded', (err: Error) => err.message)));
      assert.match(messages[0]!, /items\[0\], Pod p\): spec\.containers\[1\]\.resources\.requests\.memory/);
      assert.equal(messages[0], messages[1]);
    });
  });
});
