import assert from 'node:assert/strict';
import type { Container, PodObject, ResourceList } from '../../src/ledger/objects.js';
import { effectivePodRequests } from '../../src/ledger/pod-requests.js';
import { QuantityError } from '../../src/ledger/quantity.js';
import { pod } from '../support/builders.js';

type Spec = NonNullable<PodObject['spec']>;

const container = (name: string, requests?: ResourceList, limits?: ResourceList): Container => ({
  name,
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
});
const sidecar = (name: string, requests: ResourceList): Container => ({ ...container(name, requests), restartPolicy: 'Always' });

const requestsOf = (spec: Spec): Record<string, bigint> => Object.fromEntries(effectivePodRequests(pod('ns', 'p', { containers: [], spec: spec })));

function assertQuantityErrorAt(spec: Spec, path: string): void {
  assert.throws(
    () => effectivePodRequests(pod('ns', 'p', { containers: [], spec: spec })),
    (err: unknown) => {
      assert.ok(err instanceof QuantityError, String(err));
      assert.equal(err.path, path);
      return true;
    },
  );
}

const GI = 1024n ** 3n;
const MI = 1024n ** 2n;

describe('effectivePodRequests', () => {
  it('is empty for a pod without spec or containers', () => {
    assert.deepEqual(effectivePodRequests({ metadata: {} }), new Map());
    assert.deepEqual(requestsOf({ containers: [{ name: 'a' }] }), {});
  });

  it('sums regular containers per resource, cpu in millicores and memory in bytes', () => {
    const spec: Spec = {
      containers: [container('a', { cpu: '500m', memory: '1Gi' }), container('b', { cpu: '1', memory: '512Mi', 'example.com/gpu': '2' })],
    };
    assert.deepEqual(requestsOf(spec), { cpu: 1500n, memory: GI + 512n * MI, 'example.com/gpu': 2n });
  });

  it('adds exact quantities and rounds once at the end, like the scheduler', () => {
    const spec: Spec = { containers: [container('a', { cpu: '0.5m', memory: '0.5' }), container('b', { cpu: '0.5m', memory: '0.5' })] };
    assert.deepEqual(requestsOf(spec), { cpu: 1n, memory: 1n });
    assert.deepEqual(requestsOf({ containers: [container('a', { cpu: '0.1m', memory: '1.1' })] }), { cpu: 1n, memory: 2n });
  });

  it('takes an init container peak when it is bigger than the containers (upstream example: cpu 3, memory 3G)', () => {
    const spec: Spec = {
      initContainers: [container('ic1', { cpu: '2', memory: '1G' }), container('ic2', { cpu: '2', memory: '3G' })],
      containers: [container('c1', { cpu: '2', memory: '1G' }), container('c2', { cpu: '1', memory: '1G' })],
    };
    assert.deepEqual(requestsOf(spec), { cpu: 3000n, memory: 3_000_000_000n });
  });

  it('keeps resources only an init container requests', () => {
    const spec: Spec = { initContainers: [container('ic', { 'example.com/fpga': '1' })], containers: [container('c', { cpu: '1' })] };
    assert.deepEqual(requestsOf(spec), { 'example.com/fpga': 1n, cpu: 1000n });
  });

  it('adds sidecars to the running sum and to every later init container', () => {
    const spec: Spec = {
      initContainers: [
        container('before', { cpu: '1' }), // runs alone: 1
        sidecar('sidecar-1', { cpu: '500m', memory: '100Mi' }),
        container('between', { cpu: '2' }), // runs with sidecar-1: 2.5
        sidecar('sidecar-2', { cpu: '250m' }),
        container('after', { cpu: '1', memory: '1Gi' }), // runs with both sidecars: 1.75 cpu, 1Gi+100Mi
      ],
      containers: [container('main', { cpu: '1', memory: '200Mi' })], // with sidecars: 1.75 cpu, 300Mi
    };
    assert.deepEqual(requestsOf(spec), { cpu: 2500n, memory: GI + 100n * MI });
  });

  it('counts sidecars with the regular containers when no init container is bigger', () => {
    const spec: Spec = {
      initContainers: [container('setup', { cpu: '100m' }), sidecar('proxy', { cpu: '200m', memory: '64Mi' })],
      containers: [container('main', { cpu: '1', memory: '1Gi' })],
    };
    assert.deepEqual(requestsOf(spec), { cpu: 1200n, memory: GI + 64n * MI });
  });

  it('treats only restartPolicy "Always" as a sidecar', () => {
    const spec: Spec = {
      initContainers: [{ ...container('once', { cpu: '300m' }), restartPolicy: 'OnFailure' }],
      containers: [container('main', { cpu: '1' })],
    };
    assert.deepEqual(requestsOf(spec), { cpu: 1000n });
  });

  it('adds overhead after the container maximum', () => {
    const spec: Spec = {
      initContainers: [container('ic', { cpu: '2' })],
      containers: [container('c', { cpu: '1', memory: '1Gi' })],
      overhead: { cpu: '250m', memory: '120Mi' },
    };
    assert.deepEqual(requestsOf(spec), { cpu: 2250n, memory: GI + 120n * MI });
  });

  it('uses a container limit as its request when the request is missing (apiserver defaulting)', () => {
    const spec: Spec = {
      containers: [container('a', undefined, { cpu: '2', memory: '1Gi' }), container('b', { cpu: '100m' }, { cpu: '4', memory: '2Gi' })],
      initContainers: [container('ic', undefined, { cpu: '3' })],
    };
    // containers: cpu 2 + 0.1 (b's explicit request wins over its limit), memory 1Gi + 2Gi; init peak cpu 3
    assert.deepEqual(requestsOf(spec), { cpu: 3000n, memory: 3n * GI });
  });

  it('keeps an explicit zero request instead of the limit', () => {
    assert.deepEqual(requestsOf({ containers: [container('a', { cpu: '0' }, { cpu: '2' })] }), { cpu: 0n });
  });

  it('counts extended resources and hugepages in whole units', () => {
    const spec: Spec = {
      containers: [
        container('a', undefined, { 'nvidia.com/gpu': '1', 'hugepages-2Mi': '64Mi', memory: '1Gi' }),
        container('b', { 'nvidia.com/gpu': '2', 'hugepages-1Gi': '2Gi', 'ephemeral-storage': '10G' }),
      ],
    };
    assert.deepEqual(requestsOf(spec), {
      'nvidia.com/gpu': 3n,
      'hugepages-2Mi': 64n * MI,
      memory: GI,
      'hugepages-1Gi': 2n * GI,
      'ephemeral-storage': 10_000_000_000n,
    });
  });

  it('does not add the scheduler scoring defaults for containers without requests', () => {
    assert.deepEqual(requestsOf({ containers: [{ name: 'besteffort' }, container('empty', {})] }), {});
  });

  describe('pod-level resources', () => {
    it('replaces the container sum for cpu, memory and hugepages but not other resources', () => {
      const spec: Spec = {
        resources: { requests: { cpu: '3', memory: '4Gi', 'hugepages-2Mi': '128Mi', 'example.com/gpu': '5' } },
        containers: [container('a', { cpu: '1', memory: '1Gi', 'example.com/gpu': '1', 'ephemeral-storage': '1Gi' })],
        overhead: { cpu: '100m' },
      };
      assert.deepEqual(requestsOf(spec), { cpu: 3100n, memory: 4n * GI, 'hugepages-2Mi': 128n * MI, 'example.com/gpu': 1n, 'ephemeral-storage': GI });
    });

    it('replaces only the resources it names', () => {
      const spec: Spec = { resources: { requests: { memory: '2Gi' } }, containers: [container('a', { cpu: '1', memory: '1Gi' })] };
      assert.deepEqual(requestsOf(spec), { cpu: 1000n, memory: 2n * GI });
    });

    it('replaces the init-container peak too', () => {
      const spec: Spec = {
        resources: { requests: { cpu: '1' } },
        initContainers: [container('big-init', { cpu: '8' })],
        containers: [container('a', { cpu: '500m' })],
      };
      assert.deepEqual(requestsOf(spec), { cpu: 1000n });
    });

    it('defaults a pod-level request to the pod-level limit when no container requests the resource', () => {
      const spec: Spec = { resources: { limits: { cpu: '2', memory: '2Gi' } }, containers: [{ name: 'a' }] };
      assert.deepEqual(requestsOf(spec), { cpu: 2000n, memory: 2n * GI });
    });

    it('defaults a pod-level cpu/memory request to the container aggregate when containers request it', () => {
      const spec: Spec = {
        resources: { limits: { cpu: '4', memory: '4Gi' } },
        containers: [container('a', { cpu: '1' }), container('b', undefined, { memory: '1Gi' })],
      };
      assert.deepEqual(requestsOf(spec), { cpu: 1000n, memory: GI });
    });

    it('defaults a pod-level hugepages request to the pod-level limit even when containers request hugepages', () => {
      const spec: Spec = {
        resources: { limits: { 'hugepages-2Mi': '256Mi' } },
        containers: [container('a', undefined, { 'hugepages-2Mi': '64Mi' })],
      };
      assert.deepEqual(requestsOf(spec), { 'hugepages-2Mi': 256n * MI });
    });

    it('ignores unsupported pod-level resources entirely, even malformed ones', () => {
      const spec: Spec = {
        resources: { requests: { 'example.com/gpu': 'not a quantity' }, limits: { 'ephemeral-storage': '1Gi' } },
        containers: [container('a', { cpu: '1' })],
      };
      assert.deepEqual(requestsOf(spec), { cpu: 1000n });
    });
  });

  describe('manifest values', () => {
    it('accepts numbers and surrounding whitespace as Kubernetes JSON decoding does', () => {
      const requests = { cpu: 2, memory: ' 1Gi ' } as unknown as ResourceList;
      assert.deepEqual(requestsOf({ containers: [container('a', requests)] }), { cpu: 2000n, memory: GI });
    });

    it('keeps sums beyond 2^53 exact', () => {
      const spec: Spec = { containers: [container('a', { memory: '8Ei' }), container('b', { memory: '8Ei' })] };
      assert.deepEqual(requestsOf(spec), { memory: 2n * ((1n << 63n) - 1n) });
    });
  });

  describe('errors carry a pod-relative path', () => {
    it('names the container request', () => {
      assertQuantityErrorAt({ containers: [container('a', { cpu: '1' }), container('b', { cpu: '1.2.3' })] }, 'spec.containers[1].resources.requests.cpu');
    });

    it('names the container limit used as a request', () => {
      assertQuantityErrorAt({ containers: [container('a', undefined, { memory: '1KB' })] }, 'spec.containers[0].resources.limits.memory');
    });

    it('names the init container', () => {
      assertQuantityErrorAt({ initContainers: [sidecar('s', { 'hugepages-2Mi': 'Mi' })] }, 'spec.initContainers[0].resources.requests.hugepages-2Mi');
    });

    it('names the overhead', () => {
      assertQuantityErrorAt({ containers: [], overhead: { memory: '' } }, 'spec.overhead.memory');
    });

    it('names pod-level requests and limits', () => {
      assertQuantityErrorAt({ resources: { requests: { cpu: '--1' } } }, 'spec.resources.requests.cpu');
      assertQuantityErrorAt({ resources: { limits: { memory: '1 Gi' } } }, 'spec.resources.limits.memory');
    });

    it('rejects a non-string, non-number value', () => {
      const requests = { cpu: { value: 1 } } as unknown as ResourceList;
      assertQuantityErrorAt({ containers: [container('a', requests)] }, 'spec.containers[0].resources.requests.cpu');
    });

    it('reports the same error again for a repeated bad value (errors are not memoised)', () => {
      const spec: Spec = { containers: [container('a', { cpu: 'bogus' })] };
      assertQuantityErrorAt(spec, 'spec.containers[0].resources.requests.cpu');
      assertQuantityErrorAt(spec, 'spec.containers[0].resources.requests.cpu');
    });
  });

  it('does not modify the pod', () => {
    const spec: Spec = {
      containers: [container('a', undefined, { cpu: '1' })],
      resources: { limits: { memory: '1Gi' } },
      overhead: { cpu: '10m' },
    };
    const before = JSON.stringify(spec);
    effectivePodRequests(pod('ns', 'p', { containers: [], spec: spec }));
    assert.equal(JSON.stringify(spec), before);
  });
});

describe('effective pod requests with DRA claims', () => {
  it('does not default limits into requests in a container that uses claims (KEP-5517 worked example: limits cover the claim share)', async () => {
    const { readFileSync } = await import('node:fs');
    const example = JSON.parse(readFileSync('test/fixtures/dra-v1.36-example.json', 'utf8')) as { items: Array<{ kind: string }> };
    const trainer = example.items.find((i) => i.kind === 'Pod') as unknown as Parameters<typeof effectivePodRequests>[0];
    const requests = effectivePodRequests(trainer);
    assert.deepEqual(Object.fromEntries(requests), { cpu: 500n, memory: 1073741824n });
  });
});
