/**
 * A fresh temporary directory for each test of the enclosing `describe` (or once for the whole suite), removed after
 * it: the mkdtemp/rm pair tests that write files would otherwise each repeat.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function useTemporaryDirectory(prefix: string, scope: 'each' | 'suite' = 'each'): () => string {
  let dir: string | undefined;
  (scope === 'each' ? beforeEach : before)(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  (scope === 'each' ? afterEach : after)(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (dir === undefined) throw new Error('the temporary directory exists only while a test runs');
    return dir;
  };
}
