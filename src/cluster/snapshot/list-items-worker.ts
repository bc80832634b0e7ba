/**
 * The worker half of reading a large JSON list off the main thread (worker-list-reader.ts is the other half): it
 * scans the file (streamJsonList), parses, checks and trims every item, and posts the kept objects in batches. Parsing
 * a 355 MiB snapshot is most of a start-up and its raw objects are most of the garbage; here both stay in this
 * isolate, which is gone once the file is read, and the main thread meanwhile takes in the small trimmed objects.
 *
 * It stops at the first bad object and says where (the main thread turns that into the same ManifestError the
 * in-thread reader throws); a file whose list structure is malformed is handed back (`fallback`) for the whole-file
 * reader to report exactly as it always has.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { ClusterObject, ClusterObjectKind } from '../../ledger/objects.js';
import { streamJsonList } from './json-list-items.js';
import { admitObject, flatten, itemKindOf, ManifestError } from './manifest-items.js';

export interface ListWorkerInput {
  file: string;
  trim: boolean;
  /** Objects per posted batch. */
  batchSize: number;
}

/** Kept objects in file order; `wheres[i]` is the position of `objects[i]` (`document 1, items[N]`). */
export interface ListWorkerBatch {
  type: 'batch';
  kinds: ClusterObjectKind[];
  wheres: string[];
  objects: ClusterObject[];
  ignored: string[];
}

export type ListWorkerMessage =
  | ListWorkerBatch
  | { type: 'done' }
  /** Not a list this reader can stream (or malformed around the items): the caller reads the file whole. */
  | { type: 'fallback' }
  | { type: 'error'; where: string; problem: string };

function readList(input: ListWorkerInput, post: (message: ListWorkerMessage) => void): void {
  const { file, trim, batchSize } = input;
  let batch: ListWorkerBatch = { type: 'batch', kinds: [], wheres: [], objects: [], ignored: [] };
  const flush = (): void => {
    if (batch.objects.length === 0 && batch.ignored.length === 0) return;
    post(batch);
    batch = { type: 'batch', kinds: [], wheres: [], objects: [], ignored: [] };
  };
  let headKind: unknown;
  const fd = openSync(file, 'r');
  let streamed: { envelope: unknown } | undefined;
  try {
    streamed = streamJsonList((into, offset, length) => readSync(fd, into, offset, length, null), (text, i) => {
      const where = `document 1, items[${i}]`;
      let item: unknown;
      try {
        item = JSON.parse(text);
      } catch (err) {
        throw new ManifestError(file, where, `invalid JSON: ${(err as Error).message}`);
      }
      for (const [object, at] of flatten(item, where, itemKindOf(headKind))) {
        const admitted = admitObject(file, at, object, trim);
        if ('ignored' in admitted) {
          batch.ignored.push(admitted.ignored);
          continue;
        }
        batch.kinds.push(admitted.kind);
        batch.wheres.push(at);
        batch.objects.push(admitted.object);
        if (batch.objects.length >= batchSize) flush();
      }
    }, { onHead: (head) => {
      headKind = head['kind'];
      return Object.hasOwn(head, 'kind');
    } });
  } catch (err) {
    if (err instanceof SyntaxError) return post({ type: 'fallback' });
    if (err instanceof ManifestError) {
      // Objects before the bad one go first: the caller checks them (duplicates) in file order, as the in-thread reader does.
      flush();
      return post({ type: 'error', where: err.where, problem: err.problem });
    }
    throw err;
  } finally {
    closeSync(fd);
  }
  if (!streamed || (streamed.envelope as { kind?: unknown } | null)?.kind !== headKind) return post({ type: 'fallback' });
  flush();
  post({ type: 'done' });
}

if (parentPort) {
  const port = parentPort;
  readList(workerData as ListWorkerInput, (message) => port.postMessage(message));
}
