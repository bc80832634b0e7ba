/**
 * Every configuration key marked live is proven live: a probe reloads it through the configuration file (as an
 * operator's edit arrives: parsed, validated, the live keys merged, the running parts told) and observes the effect
 * through the public interfaces — the verbs, /debug, the metrics, the log, the API server's writes. The probes are a
 * Record over the live keys, so marking a key live without a probe does not compile.
 */
import assert from 'node:assert/strict';
import { FIELDS, type LiveKey } from '../../src/config/schema.js';
import { FRESHNESS_PROBES, freshnessWorld } from './live-probes/freshness-world.js';
import { NOMINATOR_PROBES, nominatorWorld } from './live-probes/nominator-world.js';
import { SNAPSHOT_PROBES, snapshotWorld } from './live-probes/snapshot-world.js';
import type { World } from './live-probes/world.js';

const PROBES: Record<LiveKey, unknown> = { ...SNAPSHOT_PROBES, ...NOMINATOR_PROBES, ...FRESHNESS_PROBES };

/** One running kube-ledger for a group of probes, run in turn (each restores what it changed). */
function probesOn<W extends World>(name: string, start: () => Promise<W>, probes: Readonly<Record<string, (world: W) => Promise<void>>>): void {
  describe(`reloaded on ${name}`, () => {
    let world: W | undefined;
    before(async () => {
      world = await start();
    });
    after(async () => world?.close());
    for (const [key, probe] of Object.entries(probes)) {
      it(key, async () => {
        assert.ok(world);
        await probe(world);
      });
    }
  });
}

describe('live configuration keys', function () {
  this.timeout(60_000);

  it('every key marked live has a probe, and every probe is for a live key', () => {
    const live = FIELDS.filter((field) => field.live).map((field) => field.path).sort();
    assert.deepEqual(Object.keys(PROBES).sort(), live);
  });

  probesOn('a snapshot cluster', snapshotWorld, SNAPSHOT_PROBES);
  probesOn('a live cluster with the nominator', nominatorWorld, NOMINATOR_PROBES);
  probesOn('a live cluster, preemption and serving freshness', freshnessWorld, FRESHNESS_PROBES);
});
