import assert from 'node:assert/strict';
import { defaultConfig, applyDocument, ConfigError } from '../../src/config/load-config.js';
import { labelSelectorProblem, parseLabelSelector } from '../../src/config/label-selector-text.js';

describe('dra.nodeSelector label selectors (kubectl -l syntax)', () => {
  const node = { 'kube-ledger.io/dra-canary': 'true', 'topology.kubernetes.io/zone': 'zone-a', gpu: '' };

  const cases: Array<[string, boolean]> = [
    ['kube-ledger.io/dra-canary=true', true],
    ['kube-ledger.io/dra-canary==true', true],
    ['kube-ledger.io/dra-canary!=true', false],
    ['topology.kubernetes.io/zone in (zone-a, zone-b)', true],
    ['topology.kubernetes.io/zone notin (zone-a)', false],
    ['gpu', true],
    ['!gpu', false],
    ['missing!=x', true],
    ['missing in (x)', false],
    ['kube-ledger.io/dra-canary=true,topology.kubernetes.io/zone=zone-b', false],
    ['kube-ledger.io/dra-canary=true, gpu, !missing', true],
  ];
  for (const [text, expected] of cases) {
    it(`${JSON.stringify(text)} ${expected ? 'selects' : 'does not select'} the node`, () => {
      assert.equal(parseLabelSelector(text).matches(node), expected);
    });
  }

  it('explains what is wrong with a malformed selector, and the configuration names the key', () => {
    assert.match(labelSelectorProblem('zone in (a') ?? '', /unbalanced/);
    assert.match(labelSelectorProblem('bad key=x') ?? '', /invalid label key/);
    assert.match(labelSelectorProblem('a=,') ?? '', /empty requirement/);
    const config = defaultConfig();
    assert.throws(() => applyDocument(config, { dra: { nodeSelector: 'x in (a' } }, 'test.yaml'), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /dra\.nodeSelector/);
      return true;
    });
    applyDocument(config, { dra: { nodeSelector: 'kube-ledger.io/dra-canary=true', admitNewClaims: false } }, 'test.yaml');
    assert.equal(config.dra.nodeSelector, 'kube-ledger.io/dra-canary=true');
    assert.equal(config.dra.admitNewClaims, false);
  });
});
