/**
 * Defaults are written once, in src/config/schema.ts. Modules below the composition root that accept a configured
 * value read their fallback from CONFIG_DEFAULTS; the one exception is scheduling/, which stays free of imports from
 * config/ (DESIGN: it depends on ledger/ and protocol/ only), so its default options are checked against the schema here.
 */
import assert from 'node:assert/strict';
import { schedulingOptionsFrom } from '../../src/app/scheduling-options.js';
import { DEFAULT_API_CLIENT_TIMEOUTS } from '../../src/cluster/kube/api-client.js';
import { DEFAULT_REFLECTOR_TUNING } from '../../src/cluster/kube/reflector.js';
import { DEFAULT_BOOKMARK_GRACE_SECONDS } from '../../src/cluster/freshness/freshness-tracker.js';
import { CONFIG_DEFAULTS, defaultConfig } from '../../src/config/defaults.js';
import { FIELDS } from '../../src/config/schema.js';
import { DEFAULT_NOMINATOR_TIMEOUTS } from '../../src/nomination/kube-clients.js';
import { DEFAULT_SCHEDULING_OPTIONS } from '../../src/scheduling/options.js';

describe('defaults come from the schema', () => {
  it('CONFIG_DEFAULTS holds each field\'s default and cannot be changed', () => {
    for (const field of FIELDS) {
      const value = field.path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], CONFIG_DEFAULTS);
      assert.deepEqual(value, field.default, field.path);
    }
    assert.throws(() => {
      (CONFIG_DEFAULTS.server as { port: number }).port = 1;
    }, TypeError);
    assert.throws(() => {
      (CONFIG_DEFAULTS.nomination.schedulerNames as string[]).push('x');
    }, TypeError);
    assert.notEqual(defaultConfig().server, CONFIG_DEFAULTS.server, 'defaultConfig() is a fresh, mutable copy');
  });

  it('the scheduling layer\'s default options are the schema\'s', () => {
    assert.deepEqual(DEFAULT_SCHEDULING_OPTIONS, schedulingOptionsFrom(defaultConfig()));
  });

  it('the API client, reflector, freshness tracker and nominator fall back to the schema\'s values', () => {
    const t = CONFIG_DEFAULTS.freshness.requestTimeouts;
    assert.deepEqual(DEFAULT_API_CLIENT_TIMEOUTS, { getTimeoutMs: t.listMs, watchOpenTimeoutMs: t.watchOpenMs });
    assert.equal(DEFAULT_REFLECTOR_TUNING.listTimeoutMs, t.listMs);
    assert.equal(DEFAULT_REFLECTOR_TUNING.watchIdleTimeoutMs, t.watchIdleMs);
    assert.equal(DEFAULT_BOOKMARK_GRACE_SECONDS, CONFIG_DEFAULTS.freshness.bookmarkGraceSeconds);
    assert.deepEqual(DEFAULT_NOMINATOR_TIMEOUTS, CONFIG_DEFAULTS.nomination.requestTimeouts);
  });
});
