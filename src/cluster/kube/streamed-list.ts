/**
 * A list body parsed as its bytes arrive: the unpaginated list the reflector takes after an expired continue token is
 * the whole resource (a million pods are ~2.4 GB of JSON), so it is never held whole, as text nor as bytes. The body's
 * chunks are taken from the socket only when the parser has used up the last one (the socket waits meanwhile: TCP's
 * own flow control holds the server back), copied into the parser's window and let go; items are parsed a group at a
 * time (json-list-stream.ts) and handed on, with the event loop let run between slices. What is held at once is the
 * window, the chunk being copied and, until the body's head shows it is a list, the first chunks (a body that is not
 * a list is parsed whole, as before). Every chunk counts against the list's byte bound.
 */
import type { EventLoopSlices } from '../event-loop-slices.js';
import { BYTES_LATER, NEEDS_BYTES, streamJsonListSteps } from '../json-list-stream.js';
import type { ByteBudget } from './list-bounds.js';

/** The parser's window: a few groups of items and the item that ends the last one (it grows for a larger item). */
export const STREAMED_LIST_WINDOW_BYTES = 1024 * 1024;

/** What a streamed list's reading held: the body's bytes, and the most held at once (window and chunks). */
export interface StreamedListReport {
  bytes: number;
  peakHeldBytes: number;
}

export type StreamedList = { list: true; envelope: unknown } | { list: false; body: Buffer };

export interface StreamedListOptions {
  slices: EventLoopSlices;
  signal?: AbortSignal;
  budget?: ByteBudget;
  windowBytes?: number;
  onReport?: (report: StreamedListReport) => void;
}

/** Chunks taken from the body and not yet copied into the parser's window, with the accounting of what is held. */
class ChunkQueue {
  private readonly chunks: Buffer[] = [];
  private offset = 0;
  private ended = false;
  /** Every chunk, until the body is known to be a list (a body that is not one is parsed whole). */
  private kept: Buffer[] | undefined = [];
  private keptBytes = 0;
  private queuedBytes = 0;
  windowBytes = 0;
  bytes = 0;
  peakHeldBytes = 0;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.queuedBytes += chunk.length;
    this.bytes += chunk.length;
    if (this.kept) {
      this.kept.push(chunk);
      this.keptBytes += chunk.length;
    }
    this.account();
  }

  end(): void {
    this.ended = true;
  }

  /** The body is a list: the chunks need not be kept whole any more. */
  release(): void {
    this.kept = undefined;
    this.keptBytes = 0;
  }

  /** Every chunk read so far (while kept). */
  whole(): Buffer {
    return Buffer.concat(this.kept ?? []);
  }

  account(): void {
    // A chunk still kept whole and also queued is one buffer, counted once.
    const held = this.windowBytes + Math.max(this.queuedBytes, this.keptBytes);
    if (held > this.peakHeldBytes) this.peakHeldBytes = held;
  }

  readonly read = (into: Uint8Array, at: number, length: number): number => {
    if (this.chunks.length === 0) return this.ended ? 0 : BYTES_LATER;
    let written = 0;
    for (let chunk = this.chunks[0]; written < length && chunk !== undefined; chunk = this.chunks[0]) {
      const count = Math.min(length - written, chunk.length - this.offset);
      into.set(chunk.subarray(this.offset, this.offset + count), at + written);
      written += count;
      this.offset += count;
      this.queuedBytes -= count;
      if (this.offset === chunk.length) {
        this.chunks.shift();
        this.offset = 0;
      }
    }
    return written;
  };
}

/**
 * Reads `body` (a list's response) into `onItem` item by item as it arrives; `{ list: false, body }` with the whole
 * body when it is not an object with an items array (nothing was handed on). Throws what the parser throws (a broken
 * list: SyntaxError, ListItemError), a passed byte bound, or the signal's reason once aborted.
 */
export async function readStreamedList(body: AsyncIterable<Buffer>, onItem: (item: unknown) => void,
  options: StreamedListOptions): Promise<StreamedList> {
  const queue = new ChunkQueue();
  const chunks = body[Symbol.asyncIterator]();
  const steps = streamJsonListSteps(queue.read, (item) => onItem(item), {
    chunkBytes: options.windowBytes ?? STREAMED_LIST_WINDOW_BYTES,
    onHead: () => {
      queue.release();
      return true;
    },
    onWindowBytes: (bytes) => {
      queue.windowBytes = bytes;
      queue.account();
    },
  });
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      const step = steps.next();
      if (step.done) {
        if (step.value !== undefined) return { list: true, envelope: step.value.envelope };
        for (let next = await chunks.next(); !next.done; next = await chunks.next()) take(queue, next.value, options.budget);
        return { list: false, body: queue.whole() };
      }
      if (step.value === NEEDS_BYTES) {
        const next = await chunks.next();
        if (next.done) queue.end();
        else take(queue, next.value, options.budget);
      } else if (options.slices.due()) {
        await options.slices.pause();
      }
    }
  } finally {
    options.onReport?.({ bytes: queue.bytes, peakHeldBytes: queue.peakHeldBytes });
    // Stops the body when the list ended early (a bound, an error): the socket is not read to its end.
    await chunks.return?.();
  }
}

function take(queue: ChunkQueue, chunk: Buffer, budget: ByteBudget | undefined): void {
  budget?.take(chunk.length);
  queue.push(chunk);
}
