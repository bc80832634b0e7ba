/**
 * Every configuration key is read by the code it configures: a key declared in the schema that nothing outside
 * src/config reads is a promise the extender does not keep (as `freshness.requeueCapMs` once was). The reads are
 * found by the TypeScript checker (config-key-reads.ts), not by searching text, so an alias or a parameter typed from
 * `ExtenderConfig` counts and a same-named property of something else does not. A key that stays accepted but no
 * longer does anything belongs in DEPRECATED_FIELDS, not in the schema.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FIELDS } from '../../src/config/schema.js';
import { configKeyReads } from './config-key-reads.js';

describe('every configuration key is read', function () {
  this.timeout(120_000); // one TypeScript program over src/ (a few seconds; more on a loaded machine)

  it('each schema key is read somewhere in src/ outside src/config/', () => {
    const reads = configKeyReads();
    const unread = FIELDS.map((field) => field.path).filter((path) => !reads.has(path));
    assert.deepEqual(unread, [], `declared in src/config/schema.ts but read nowhere: ${unread.join(', ')} (wire it, or move it to DEPRECATED_FIELDS)`);
  });

  it('finds reads through aliases, destructuring and typed parameters, and ignores writes and look-alikes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kl-key-reads-'));
    try {
      const schema = resolve('src/config/schema.ts').replace(/\.ts$/, '.js');
      const file = join(dir, 'reader.ts');
      writeFileSync(
        file,
        [
          `import type { ExtenderConfig } from ${JSON.stringify(schema)};`,
          'export function use(config: ExtenderConfig, other: { burst: number; port: number }) {',
          '  const d = config.freshness.directRead;',
          '  const { workers } = config.nomination;',
          '  config.server.port = 1;',
          '  return d.burst + workers + other.port + other.burst + timeouts(config.nomination.requestTimeouts);',
          '}',
          "function timeouts(t: ExtenderConfig['nomination']['requestTimeouts']) { return t.leaseMs; }",
        ].join('\n'),
      );
      const reads = configKeyReads([file]);
      assert.ok(reads.has('freshness.directRead.burst'), 'through an alias');
      assert.ok(reads.has('nomination.workers'), 'destructured');
      assert.ok(reads.has('nomination.requestTimeouts.leaseMs'), 'through a parameter typed from ExtenderConfig');
      assert.ok(!reads.has('server.port'), 'a write is not a read');
      assert.ok(!reads.has('nomination.requestTimeouts.getMs'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
