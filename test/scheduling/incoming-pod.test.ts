/**
 * The pod a request is about (scheduling/incoming-pod.ts), kept by the cycle cache: read once per wire object, so a
 * prioritize handed its filter's Pod object (protocol/extender-args-text.ts) gets the filter's entry, and any other
 * object is read anew; a disabled cache reads every call's pod anew.
 */
import assert from 'node:assert/strict';
import { InputError } from '../../src/protocol/errors.js';
import type { WireObject } from '../../src/protocol/types.js';
import { CycleCache } from '../../src/scheduling/cycle-cache.js';
import { ledgerOf } from '../support/builders.js';

const cache = new CycleCache();
const incomingPodFromWire = (wire: WireObject | null) => cache.incomingPod(wire);

const wirePod = (name: string, cpu: string): WireObject => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}` },
  spec: { containers: [{ name: 'c', resources: { requests: { cpu } } }] },
}) as unknown as WireObject;

describe('incoming pod from the wire', () => {
  it('hands the same entry for the same wire object, and reads another object anew even when it is equal', () => {
    const first = wirePod('p', '250m');
    const entry = incomingPodFromWire(first);
    assert.equal(incomingPodFromWire(first), entry, 'the filter\'s Pod object handed to prioritize: the filter\'s entry');
    assert.equal(entry.requests.get('cpu'), 250n);
    const equal = wirePod('p', '250m');
    const again = incomingPodFromWire(equal);
    assert.notEqual(again, entry);
    assert.deepEqual(again.requests, entry.requests);
    const other = incomingPodFromWire(wirePod('q', '2'));
    assert.equal(other.name, 'q');
    assert.equal(other.requests.get('cpu'), 2000n);
  });

  it('refuses a malformed pod every time it is asked, naming the field (an error is not remembered)', () => {
    const bad = { metadata: { name: 'b' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: 'lots' } } }] } } as unknown as WireObject;
    for (let i = 0; i < 2; i++) {
      assert.throws(() => incomingPodFromWire(bad), (err: unknown) => err instanceof InputError && /\$\.Pod\.spec\.containers\[0\]\.resources\.requests\.cpu/.test(err.message));
    }
    assert.throws(() => incomingPodFromWire(null), (err: unknown) => err instanceof InputError && /pod is required/.test(err.message));
  });

  it('a disabled cache reads the same wire object anew on every call', () => {
    const off = new CycleCache({ enabled: false });
    const ledger = ledgerOf([]);
    const first = wirePod('p', '250m');
    off.begin(ledger);
    const entry = off.incomingPod(first);
    off.begin(ledger);
    const again = off.incomingPod(first);
    assert.notEqual(again, entry);
    assert.deepEqual(again.requests, entry.requests);
  });
});
