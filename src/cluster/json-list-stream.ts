/**
 * A JSON `List` document read in chunks (json-list-items.ts says why items are split out and how the bytes are scanned):
 * a window over the document is refilled from a reader, and each item goes to its consumer as soon as it has been
 * read, so neither the document nor its items are ever held whole. `streamJsonListSteps` pauses between groups of
 * items (and while its reader waits for bytes), so a caller lets the event loop run between them.
 */
import { BACKSLASH, CLOSE_BRACKET, COLON, COMMA, decode, itemsOpenBracket, OPEN_BRACE, QUOTE, skipValue, skipWhitespace } from './json-list-items.js';
import { grown } from '../ledger/typed-arrays.js';

/**
 * Where `streamJsonList` reads from: fills `into` from `offset`, at most `length` bytes, and returns how many; 0 at the
 * end; `BYTES_LATER` when it has none yet but the document goes on (a body still arriving; `streamJsonListSteps` then
 * yields `NEEDS_BYTES` and reads again when resumed).
 */
export type ByteReader = (into: Uint8Array, offset: number, length: number) => number;

/** What a reader returns when it has no bytes yet and the document is not at its end. */
export const BYTES_LATER = -1;

/** What `streamJsonListSteps` yields when its reader had no bytes yet: resume it once the reader has more. */
export const NEEDS_BYTES = 'needs-bytes';

/** A step of `streamJsonListSteps`: items were handed on (undefined), or the reader must be given more bytes. */
export type ListStep = undefined | typeof NEEDS_BYTES;

const STREAM_CHUNK_BYTES = 8 * 1024 * 1024;
/**
 * Bytes read into the window at once: a read of a whole 8 MiB window (a copy out of the page cache, plus moving what
 * was kept) held the event loop ~20 ms in one step; a megabyte at a time spreads that over the steps.
 */
const READ_BYTES = 1024 * 1024;

/**
 * A window over the document, refilled from the reader: bytes before `keepFrom` are dropped when more are needed,
 * so memory is one chunk plus the item being scanned (a window grows only for an item larger than a chunk).
 */
class Window {
  bytes: Uint8Array;
  end = 0;
  eof = false;
  /** The last read found no bytes yet (`BYTES_LATER`); `refill` waits and reads again. */
  starved = false;
  /** Offset in the document of `bytes[0]`. */
  base = 0;

  constructor(private readonly read: ByteReader, chunkBytes: number, private readonly onSize?: (bytes: number) => void) {
    this.bytes = new Uint8Array(chunkBytes);
    onSize?.(chunkBytes);
  }

  /**
   * Reads more, at most `READ_BYTES` at a time, keeping bytes from `keepFrom` on (moved to the front when the room
   * after them is short of a read); returns how far indices moved back.
   */
  more(keepFrom: number): number {
    if (this.eof) return 0;
    let shift = 0;
    if (this.bytes.length - this.end < Math.min(READ_BYTES, this.bytes.length)) {
      if (keepFrom === 0 && this.end === this.bytes.length) {
        this.bytes = grown(this.bytes, this.bytes.length * 2);
        this.onSize?.(this.bytes.length);
      } else if (keepFrom > 0) {
        this.bytes.copyWithin(0, keepFrom, this.end);
        this.end -= keepFrom;
        this.base += keepFrom;
        shift = keepFrom;
      }
    }
    const got = this.read(this.bytes, this.end, Math.min(this.bytes.length - this.end, READ_BYTES));
    if (got === 0) this.eof = true;
    else if (got === BYTES_LATER) this.starved = true;
    else this.end += got;
    return shift;
  }

  view(): Uint8Array {
    return this.bytes.subarray(0, this.end);
  }
}

/** An item that is not valid JSON: its index in the list and JSON.parse's message. */
export class ListItemError extends Error {
  constructor(
    readonly index: number,
    readonly detail: string,
  ) {
    super(`item ${index} of the list: ${detail}`);
    this.name = 'ListItemError';
  }
}

/**
 * Bytes of items parsed by one JSON.parse (see `streamJsonList`). Small enough that the group's text stays in V8's
 * young generation (strings above ~128 KiB go to the large-object space, freed only by full collections: 1 MiB
 * groups measured +35-60 MiB RSS after load and +40 MiB peak), large enough that the calls are few (~5700 at 355 MiB).
 */
const GROUP_BYTES = 64 * 1024;
/** Group lengths read ahead of a group's start before its end is looked for: room for the item it ends within. */
const GROUP_LOOKAHEAD = 2;
/** Groups that did not parse before the file is read item by item only (its separator is not telling). */
const MAX_GROUP_FAILURES = 4;
/** How far the first key of two items' shared start is looked for. */
const MAX_SHARED_START = 64;

/**
 * How many of the next item's first bytes go into the separator: up to the end of the first key (`{"metadata":`)
 * when the item before it starts with the same key, else the first byte alone. Why: the API server writes compact
 * JSON, where the bytes between items are just `,` and the next item's `{`, and `,{` occurs inside every pod (any
 * list of objects): groups cut there did not parse, and after 4 such groups the rest of the page was read item by
 * item in JavaScript (~1.6 s of a 150k-pod start). `,{"metadata":` begins only items. Only the first key: a list of
 * several kinds (a snapshot's `{"apiVersion":"v1","kind":"Node"` then `...,"kind":"Pod"`) shares no more than that,
 * and a separator that stops occurring sends the rest of the window item by item.
 */
function sharedItemStart(bytes: Uint8Array, previous: number, next: number, end: number): number {
  if (bytes[next] !== OPEN_BRACE || bytes[previous] !== OPEN_BRACE || bytes[next + 1] !== QUOTE) return 1;
  for (let k = 2; k < MAX_SHARED_START && next + k + 1 < end; k++) {
    const byte = bytes[next + k];
    if (byte !== bytes[previous + k]) return 1;
    if (byte === BACKSLASH) return 1;
    if (byte === QUOTE) return bytes[next + k + 1] === COLON && bytes[previous + k + 1] === COLON ? k + 2 : 1;
  }
  return 1;
}

export interface StreamOptions {
  chunkBytes?: number;
  groupBytes?: number;
  /** The fields before the items; false: do not stream (nothing is delivered, undefined is returned). */
  onHead?: (head: Record<string, unknown>) => boolean;
  /** The window's size in bytes, when it is allocated and whenever an item larger than it makes it grow. */
  onWindowBytes?: (bytes: number) => void;
}

/** `window.more(keepFrom)`, yielding `NEEDS_BYTES` for as long as the reader has no bytes yet; the shift, as `more`. */
function* refill(window: Window, keepFrom: number): Generator<ListStep, number> {
  const shift = window.more(keepFrom);
  while (window.starved) {
    window.starved = false;
    yield NEEDS_BYTES;
    window.more(0);
  }
  return shift;
}

/**
 * `splitJsonList` for a document read in chunks: each item is parsed and goes to `onItem` as soon as it has been
 * read, so neither the file nor its items are ever held whole (a 370 MB snapshot needs one 8 MiB window). Returns
 * undefined, before any item, when the document is not an object with an `items` array; throws SyntaxError when the
 * list's structure or the envelope is malformed, ListItemError for an item that is not valid JSON (items already
 * delivered are then to be discarded by the caller).
 *
 * Items are parsed 64 KiB at a time, not one by one: the bytes between the first two items (`,\n` and the
 * next item's first byte, say) are the separator, and the text from an item's start to the next occurrence of that
 * separator past 64 KiB is parsed as `[text]`. Scanning every byte in JavaScript to find each item's end took
 * 0.5-1 s of a 355 MiB load (150k pods); a native search for the separator costs next to nothing. It is exact: the text
 * starts where an item starts, so if `[text]` parses, it is whole items and the separator after it (whitespace and
 * one comma) leads to the next item. When it does not parse (the separator also occurs inside items, or an item is
 * bad), the same bytes are read item by item as before, which finds the bad item and reports it as it always has.
 */
export function streamJsonList(read: ByteReader, onItem: (value: unknown, index: number) => void,
  options: StreamOptions = {}): { envelope: unknown } | undefined {
  const steps = streamJsonListSteps(read, onItem, options);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    if (step.value === NEEDS_BYTES) throw new Error('streamJsonList: a reader that waits for bytes needs streamJsonListSteps');
  }
}

/**
 * `streamJsonList` as steps: the generator pauses after each group of items and each item read alone, so a caller can
 * let the event loop run between steps (a 355 MiB snapshot is thousands of steps); its return value is the list's.
 * With a reader that answers `BYTES_LATER` (a body still arriving), it also pauses with `NEEDS_BYTES` until the caller
 * has more bytes for it: the document is then parsed as it arrives, holding one window of it.
 */
export function* streamJsonListSteps(read: ByteReader, onItem: (value: unknown, index: number) => void,
  options: StreamOptions = {}): Generator<ListStep, { envelope: unknown } | undefined> {
  const window = new Window(read, options.chunkBytes ?? STREAM_CHUNK_BYTES, options.onWindowBytes);
  const open = yield* itemsOpenInWindow(window);
  if (open === undefined || open < 0) return undefined;
  const head = decode(window.bytes, 0, open);
  // The fields before the items (a typed list's `kind` names its items' kind), or no streaming when the caller says so.
  if (options.onHead && !options.onHead(JSON.parse(`${head}[]}`) as Record<string, unknown>)) return undefined;
  return yield* new StreamedItems(window, head, open, onItem, options.groupBytes ?? GROUP_BYTES).read();
}

/** `itemsOpenBracket` of the document, reading on for as long as its head runs past the window. */
function* itemsOpenInWindow(window: Window): Generator<ListStep, number | undefined> {
  yield* refill(window, 0);
  // The head (up to the items' `[`) is scanned again from the start whenever it does not fit the window yet.
  for (;;) {
    const open = itemsOpenBracket(window.view());
    if (open !== undefined || window.eof) return open;
    yield* refill(window, 0);
  }
}

/** The items of a streamed list, from its `[` on: read a group at a time where the separator allows, else one by one. */
class StreamedItems {
  /** Where in the window reading goes on. */
  private i: number;
  private index = 0;
  /** What separates two items plus the next item's first byte, learned from the first two; undefined until then. */
  private separator: Buffer | undefined;
  /** Where, in the separator, the next item's first byte is. */
  private separatorItemOffset = 0;
  private groupFailures = 0;
  /** Document offset up to which items are read one by one (after a group that did not parse or found no separator). */
  private oneByOneUntil = 0;

  constructor(
    private readonly window: Window,
    private readonly head: string,
    open: number,
    private readonly onItem: (value: unknown, index: number) => void,
    private readonly groupBytes: number,
  ) {
    this.i = open + 1;
  }

  *read(): Generator<ListStep, { envelope: unknown }> {
    this.i = yield* this.skipWhitespaceMore(this.i);
    if (this.window.bytes[this.i] === CLOSE_BRACKET && this.i < this.window.end) return { envelope: yield* envelopeOf(this.head, this.window, this.i) };
    for (;;) {
      if (yield* this.parseGroup()) {
        yield;
        continue;
      }
      const end = yield* this.parseItem();
      yield;
      const close = yield* this.passSeparator(end);
      if (close !== undefined) return { envelope: yield* envelopeOf(this.head, this.window, close) };
    }
  }

  private *skipWhitespaceMore(from: number): Generator<ListStep, number> {
    const window = this.window;
    let at = skipWhitespace(window.view(), from);
    while (at >= window.end && !window.eof) at = skipWhitespace(window.view(), at - (yield* refill(window, at)));
    return at;
  }

  /** Parses the group of items starting at `i` when there is one; false: read the next item alone. */
  private *parseGroup(): Generator<ListStep, boolean> {
    const { window, separator, groupBytes } = this;
    if (separator === undefined || this.groupFailures >= MAX_GROUP_FAILURES || window.base + this.i < this.oneByOneUntil) return false;
    // Past the group's bytes, room for the item that ends it (the separator after it is looked for there).
    while (window.end - this.i < GROUP_LOOKAHEAD * groupBytes + separator.length && !window.eof) this.i -= yield* refill(window, this.i);
    const view = Buffer.from(window.bytes.buffer, window.bytes.byteOffset, window.end);
    const at = view.indexOf(separator, Math.min(this.i + groupBytes, window.end));
    if (at < 0) {
      this.oneByOneUntil = window.base + window.end;
      return false;
    }
    let values: unknown[];
    try {
      values = JSON.parse(`[${decode(window.bytes, this.i, at)}]`) as unknown[];
    } catch {
      this.groupFailures++;
      this.oneByOneUntil = window.base + at;
      return false;
    }
    for (let k = 0; k < values.length; k++) {
      const value = values[k];
      // Each raw item is garbage once delivered: a collection during the group must not keep (and promote) it.
      values[k] = undefined;
      this.onItem(value, this.index++);
    }
    this.i = at + this.separatorItemOffset;
    return true;
  }

  /** Parses the item at `i` alone and hands it on; where it ends (`i` stays at its start). */
  private *parseItem(): Generator<ListStep, number> {
    const window = this.window;
    let end = skipValue(window.view(), this.i);
    while ((end < 0 || end >= window.end) && !window.eof) {
      this.i -= yield* refill(window, this.i);
      end = skipValue(window.view(), this.i);
    }
    if (end < 0) throw new SyntaxError(`unterminated item ${this.index} of the list`);
    let value: unknown;
    try {
      value = JSON.parse(decode(window.bytes, this.i, end));
    } catch (err) {
      throw new ListItemError(this.index, (err as Error).message);
    }
    this.onItem(value, this.index++);
    return end;
  }

  /**
   * Reads past what follows the item at `i` that ends at `end`: the `]` closing the items (its index is returned), or
   * a comma, leaving `i` at the next item (undefined is returned) and learning the separator from the first such one.
   */
  private *passSeparator(end: number): Generator<ListStep, number | undefined> {
    const window = this.window;
    const itemStart = this.i;
    const base = window.base;
    this.i = yield* this.skipWhitespaceMore(end);
    if (this.i >= window.end) throw new SyntaxError('the list\'s items are not closed');
    const c = window.bytes[this.i];
    if (c === CLOSE_BRACKET) return this.i;
    if (c !== COMMA) throw new SyntaxError(`expected , or ] after item ${this.index - 1} of the list`);
    this.i = yield* this.skipWhitespaceMore(this.i + 1);
    // Learned where the separator lies whole in the window (no refill moved it); else at a later item.
    if (this.separator === undefined && window.base === base && this.i < window.end) {
      this.separatorItemOffset = this.i - end;
      this.separator = Buffer.from(window.bytes.subarray(end, this.i + sharedItemStart(window.bytes, itemStart, this.i, window.end)));
    }
    return undefined;
  }
}

/** The document without its items: the head, `[]`, and everything after the items' `]` (read to the end). */
function* envelopeOf(head: string, window: Window, close: number): Generator<ListStep, unknown> {
  const tail: Uint8Array[] = [window.bytes.slice(close + 1, window.end)];
  while (!window.eof) {
    const from = window.end - (yield* refill(window, window.end));
    tail.push(window.bytes.slice(from, window.end));
  }
  return JSON.parse(`${head}[]${Buffer.concat(tail).toString('utf8')}`);
}
