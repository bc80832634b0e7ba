/**
 * Reads a large JSON list on a worker thread (list-items-worker.ts): the main thread receives the checked, trimmed
 * objects in batches, in file order, and never holds the file's text or its raw objects. Measured at 5000 nodes /
 * 150k pods, parsing and its garbage were most of the start-up, and they run here beside the main thread's work.
 *
 * A worker that fails (an exception, an exit, an exhausted heap) rejects with an error naming the file; the caller's
 * usual failure handling applies (a snapshot reload keeps the last good snapshot).
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ListWorkerBatch, ListWorkerInput, ListWorkerMessage } from './list-items-worker.js';
import { ManifestError } from './manifest-items.js';

/** The worker's module beside this one: `.js` when compiled, `.ts` when run through tsx (tests, `npm run dev`). */
export const LIST_WORKER_ENTRY = new URL(`./list-items-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/** Large enough that a batch's message overhead is noise, small enough that the main thread keeps up as they come. */
const BATCH_SIZE = 2000;

export interface WorkerListOptions {
  trim: boolean;
  /** For tests: another worker module speaking the same messages. */
  entry?: URL;
}

/**
 * A worker on `entry`. Run from the TypeScript sources (tests, development through tsx), the entry is a `.ts` file,
 * which a Node 20 worker cannot load by itself (the parent's `--import tsx` hooks do not reach it): the worker first
 * registers tsx's hooks, then imports the entry. The compiled program (`dist/`, the image) loads its `.js` directly.
 */
function startWorker(entry: URL, input: ListWorkerInput): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData: input });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData: input });
}

/**
 * Streams `file` through a worker; each batch goes to `onBatch` (which may throw, e.g. a duplicate: the worker is then
 * stopped and the promise rejects with that error). Resolves true when the whole list was read, false when the file
 * is not a streamable list (nothing more will be delivered; discard what was).
 */
export function readListInWorker(file: string, options: WorkerListOptions, onBatch: (batch: ListWorkerBatch) => void): Promise<boolean> {
  const input: ListWorkerInput = { file, trim: options.trim, batchSize: BATCH_SIZE };
  const worker = startWorker(options.entry ?? LIST_WORKER_ENTRY, input);
  return new Promise<boolean>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      worker.removeAllListeners('message');
      void worker.terminate();
      outcome();
    };
    worker.on('message', (message: ListWorkerMessage) => {
      try {
        switch (message.type) {
          case 'batch':
            onBatch(message);
            return;
          case 'done':
            return settle(() => resolve(true));
          case 'fallback':
            return settle(() => resolve(false));
          case 'error':
            return settle(() => reject(new ManifestError(file, message.where, message.problem)));
        }
      } catch (err) {
        settle(() => reject(err as Error));
      }
    });
    worker.on('error', (err) => settle(() => reject(new Error(`${file}: reading the list on a worker thread failed: ${err.message}`))));
    worker.on('exit', (code) => settle(() => reject(new Error(`${file}: the list reader's worker thread exited (code ${code}) before the end of the file`))));
  });
}
