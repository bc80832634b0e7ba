/**
 * The request pod's JSON types (scheduling/wire-pod-shape.ts): a valid pod passes on the walk without a trail, and a
 * wrong value anywhere the shape types it (deep in lists of objects, in maps, a null object in a list) is refused with
 * its JSON path, as Go's decoder names the first wrong value in document order.
 */
import assert from 'node:assert/strict';
import { InputError } from '../../src/protocol/errors.js';
import { checkWirePodShape } from '../../src/scheduling/wire-pod-shape.js';

const requirement = (values: unknown[]) => ({ key: 'zone', operator: 'In', values });

function pod(overrides: { labels?: unknown; requirements?: unknown[]; tolerations?: unknown[]; claims?: unknown[] } = {}) {
  return {
    metadata: { name: 'p', namespace: 'ns', labels: overrides.labels ?? { app: 'a' }, unknownKey: [1, { x: 2 }] },
    spec: {
      containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: 1073741824 }, claims: overrides.claims ?? [] } }],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: overrides.requirements ?? [requirement(['a', 'b'])] }],
      } } },
      tolerations: overrides.tolerations ?? [{ key: 'k', operator: 'Exists', tolerationSeconds: 30 }],
      nodeName: null,
      volumes: [{ name: 'v', emptyDir: { medium: 7 } }],
    },
    status: null,
  };
}

function refusal(value: unknown): string | undefined {
  try {
    checkWirePodShape(value, '$.Pod');
    return undefined;
  } catch (err) {
    assert.ok(err instanceof InputError, `an InputError, not ${String(err)}`);
    return err.message;
  }
}

describe('request pod JSON types', () => {
  it('passes a valid pod: null fields, keys it does not read and open volume sources included', () => {
    assert.equal(refusal(pod()), undefined);
    assert.equal(refusal(pod({ requirements: [requirement([null, 'b'])] })), undefined, 'a null string in a list of strings is Go\'s ""');
  });

  it('names the first wrong value deep in lists of objects and in maps', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['a number among the values', pod({ requirements: [requirement(['a']), requirement(['b', 3])] }),
        /nodeSelectorTerms\[0\]\.matchExpressions\[1\]\.values\[1\]: expected string, got number/],
      ['a null requirement', pod({ requirements: [requirement(['a']), null] }), /matchExpressions\[1\]: expected object, got null/],
      ['a label value that is a number', pod({ labels: { app: 'a', tier: 2 } }), /metadata\.labels\.tier: expected string, got number/],
      ['tolerationSeconds as a fraction', pod({ tolerations: [{ key: 'k' }, { tolerationSeconds: 1.5 }] }), /tolerations\[1\]\.tolerationSeconds: expected integer, got number/],
      ['a claim reference as a string', pod({ claims: ['gpu'] }), /resources\.claims\[0\]: expected object, got string/],
      ['labels as a list', pod({ labels: ['a'] }), /metadata\.labels: expected object, got array/],
    ];
    for (const [name, value, message] of cases) assert.match(refusal(value) ?? 'passed', message, name);
  });

  it('reports the first wrong value in document order when there are several', () => {
    const message = refusal(pod({ labels: { app: 1 }, tolerations: [{ key: 2 }] }));
    assert.match(message ?? 'passed', /metadata\.labels\.app: expected string, got number/);
  });
});
