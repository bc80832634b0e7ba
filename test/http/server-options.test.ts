import assert from 'node:assert/strict';
import { DEFAULT_HTTP_OPTIONS, normalizePathPrefix, validateHttpOptions } from '../../src/http/server-options.js';
import { startExtenderServer } from '../../src/http/server.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createStubService } from './support.js';

describe('http options', () => {
  const prefixes: Array<[string, string]> = [
    ['', ''],
    ['/', ''],
    ['/scheduler', '/scheduler'],
    ['/scheduler/', '/scheduler'],
    ['/a/b.c_d~e-f//', '/a/b.c_d~e-f'],
  ];
  for (const [input, expected] of prefixes) {
    it(`normalizes the prefix ${JSON.stringify(input)} to ${JSON.stringify(expected)}`, () => {
      assert.equal(normalizePathPrefix(input), expected);
    });
  }

  for (const bad of ['scheduler', '/a b', '/a//b', '/../x', '/x?y', '/%2e']) {
    it(`refuses the prefix ${JSON.stringify(bad)}`, () => assert.throws(() => normalizePathPrefix(bad), /pathPrefix/));
  }

  it('has the documented defaults', () => {
    assert.equal(DEFAULT_HTTP_OPTIONS.host, '0.0.0.0');
    assert.equal(DEFAULT_HTTP_OPTIONS.port, 8888);
    assert.equal(DEFAULT_HTTP_OPTIONS.bodyLimitBytes, 64 * 1024 * 1024);
    assert.equal(DEFAULT_HTTP_OPTIONS.headersTimeoutMs, 10_000);
    assert.equal(DEFAULT_HTTP_OPTIONS.requestTimeoutMs, 30_000);
    assert.equal(DEFAULT_HTTP_OPTIONS.shutdownDeadlineMs, 10_000);
  });

  it('refuses a headers timeout longer than the request timeout and non-positive limits', () => {
    assert.throws(() => validateHttpOptions({ ...DEFAULT_HTTP_OPTIONS, headersTimeoutMs: 60_000 }), /headersTimeoutMs/);
    assert.throws(() => validateHttpOptions({ ...DEFAULT_HTTP_OPTIONS, bodyLimitBytes: 0 }), /bodyLimitBytes/);
  });

  it('the server refuses an invalid prefix before it listens', async () => {
    const deps = { service: createStubService(), metrics: createMetrics(), logger: silentLogger };
    const options = { ...DEFAULT_HTTP_OPTIONS, host: '127.0.0.1', port: 0, ops: { host: '127.0.0.1', port: 0 }, pathPrefix: 'nope' };
    await assert.rejects(startExtenderServer({ ...deps, options }), /pathPrefix/);
  });
});
