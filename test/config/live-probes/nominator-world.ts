/**
 * Live nomination keys, observed in the API server's writes: the composition root against the fake API server, with
 * every timer of the live half on a fake clock, so "not nominated" is proven by running the clock past every resync
 * that could nominate, never by sleeping.
 */
import assert from 'node:assert/strict';
import { startKubeLedger } from '../../../src/app/start.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { NOMINATION_ANNOTATION } from '../../../src/nomination/decision-record.js';
import { node, pod } from '../../support/builders.js';
import { eventually } from '../../support/eventually.js';
import { startFakeApiServer, type FakeApiServer } from '../../support/fake-apiserver/index.js';
import { FakeClock } from '../../support/fake-clock.js';
import { noRequestInFlight } from '../../cluster/kube/support.js';
import { nominatedNodeName } from '../../nomination/support.js';
import { worldOf, type World } from './world.js';

export interface NominatorWorld extends World {
  api: FakeApiServer;
  clock: FakeClock;
}

export async function nominatorWorld(): Promise<NominatorWorld> {
  const api = await startFakeApiServer({ bookmarkIntervalMs: 100, objects: [node('n1', { cpu: '64', memory: '64Gi' })] });
  const clock = new FakeClock(Date.now());
  const world = await worldOf(async (logger) => {
    const config = loadConfig({
      overrides: [['cluster.kubeconfig', api.kubeconfigFile(), 'test'], ['server.port', 0, 'test'], ['server.ops.port', 0, 'test'], ['server.host', '127.0.0.1', 'test'],
        ['nomination.enabled', false, 'test'], ['nomination.namespaces', 'canary', 'test']],
    });
    const running = await startKubeLedger(config, { logger, live: { timers: clock } });
    await eventually(() => running.source.hasSynced(), 'the live source synced');
    return running;
  }, () => api.close());
  return { ...world, api, clock };
}

const drive = (w: NominatorWorld) => ({ idle: () => noRequestInFlight(w.api) });

/** Creates a pending pod and waits until the ledger has it. */
async function pending(w: NominatorWorld, namespace: string, name: string, spec: Record<string, unknown> = {}): Promise<void> {
  w.api.create(pod(namespace, name, { cpu: '1', spec }));
  await eventually(() => w.running.ledger.podByKey(`${namespace}/${name}`) !== undefined, `the ledger sees ${namespace}/${name}`);
}

/** Not nominated through 5 s of clock time (every resync), then nominated once `change` is reloaded. */
async function nominatedOnlyAfter(w: NominatorWorld, namespace: string, name: string, change: Parameters<World['reload']>[0]): Promise<void> {
  await w.clock.runFor(5000, drive(w));
  assert.equal(nominatedNodeName(w.api, name, namespace), undefined, `${namespace}/${name} not nominated before the reload`);
  await w.reload(change);
  await w.clock.runUntil(() => nominatedNodeName(w.api, name, namespace) === 'n1', `${namespace}/${name} nominated after the reload`, drive(w));
}

export const NOMINATOR_PROBES = {
  'nomination.enabled': async (w: NominatorWorld) => {
    await pending(w, 'canary', 'first');
    await nominatedOnlyAfter(w, 'canary', 'first', (c) => (c.nomination.enabled = true));
  },

  'nomination.namespaces': async (w: NominatorWorld) => {
    await pending(w, 'other', 'outside');
    await nominatedOnlyAfter(w, 'other', 'outside', (c) => (c.nomination.namespaces = ['canary', 'other']));
  },

  'nomination.priorityClasses': async (w: NominatorWorld) => {
    await w.reload((c) => (c.nomination.priorityClasses = ['gold']));
    await pending(w, 'canary', 'silver-pod', { priorityClassName: 'silver' });
    await nominatedOnlyAfter(w, 'canary', 'silver-pod', (c) => (c.nomination.priorityClasses = ['gold', 'silver']));
    await w.reload((c) => (c.nomination.priorityClasses = []));
  },

  'nomination.schedulerNames': async (w: NominatorWorld) => {
    await pending(w, 'canary', 'custom-pod', { schedulerName: 'custom' });
    await nominatedOnlyAfter(w, 'canary', 'custom-pod', (c) => (c.nomination.schedulerNames = ['default-scheduler', 'custom']));
  },

  'nomination.ttlSeconds': async (w: NominatorWorld) => {
    const ttlOf = (name: string) => (JSON.parse(String((w.api.get('pods', 'canary', name)?.['metadata'] as { annotations?: Record<string, string> }).annotations?.[NOMINATION_ANNOTATION])) as { ttlSeconds: number }).ttlSeconds;
    const nominate = async (name: string) => {
      await pending(w, 'canary', name);
      await w.clock.runUntil(() => nominatedNodeName(w.api, name) === 'n1', `canary/${name} nominated`, drive(w));
      return ttlOf(name);
    };
    assert.equal(await nominate('earlier'), 60);
    await w.reload((c) => (c.nomination.ttlSeconds = 300));
    assert.equal(await nominate('later'), 300, 'a nomination made after the reload carries the new TTL');
  },
};
