/**
 * Pod names as bytes in fixed-size pages instead of a string each (a short string costs its header, padding and a
 * pointer; a name in the arena costs its bytes rounded up to 4 and five bytes of columns). Names are DNS subdomains:
 * ASCII, at most 253 characters; anything else is kept as a string beside the arena. A freed slot goes on the free
 * list of its size and is taken by the next name of that size (the pods of one workload have names of one length),
 * so churn reuses space instead of fragmenting the arena. The arena grows by a page, never by copying what it holds
 * (at a million pods, copying one growing buffer held the event loop for over 50 ms); a name never spans two pages.
 */
import { grown } from './typed-arrays.js';

const GRANULE = 4;
const MAX_ARENA_NAME = 255;
const PAGE_SHIFT = 16;
const PAGE_BYTES = 1 << PAGE_SHIFT;
const IN_PAGE = PAGE_BYTES - 1;
const NO_PAGE = new Uint8Array(0);

export class NameArena {
  private readonly pages: Uint8Array[] = [];
  /** Where the next name goes: page index × PAGE_BYTES + offset in the page (the form `offsets` keeps). */
  private end = 0;
  private readonly freeBySize = new Map<number, number[]>();
  /** Per id: where its name starts (as `end` counts), and its length (0 with the name kept as a string in `texts`). */
  offsets = new Uint32Array(0);
  lengths = new Uint8Array(0);
  private readonly texts = new Map<number, string>();

  /** Makes room for ids below `capacity`. */
  growIds(capacity: number): void {
    this.offsets = grown(this.offsets, capacity);
    this.lengths = grown(this.lengths, capacity);
  }

  set(id: number, name: string): void {
    const length = name.length;
    if (length === 0 || length > MAX_ARENA_NAME || !isAscii(name)) {
      this.lengths[id] = 0;
      this.texts.set(id, name);
      return;
    }
    const offset = this.allocate(roundUp(length));
    const page = this.pageOf(offset);
    const at = offset & IN_PAGE;
    for (let i = 0; i < length; i++) page[at + i] = name.charCodeAt(i);
    this.offsets[id] = offset;
    this.lengths[id] = length;
  }

  /** Frees the id's name. */
  clear(id: number): void {
    const length = (this.lengths[id] ?? 0);
    if (length === 0) {
      this.texts.delete(id);
      return;
    }
    const size = roundUp(length);
    let free = this.freeBySize.get(size);
    if (free === undefined) this.freeBySize.set(size, (free = []));
    free.push((this.offsets[id] ?? 0));
    this.lengths[id] = 0;
  }

  get(id: number): string {
    const length = (this.lengths[id] ?? 0);
    if (length === 0) return this.texts.get(id) ?? '';
    const offset = (this.offsets[id] ?? 0);
    const at = offset & IN_PAGE;
    return String.fromCharCode.apply(null, this.pageOf(offset).subarray(at, at + length) as unknown as number[]);
  }

  /** Whether the id's name is `name`. */
  is(id: number, name: string): boolean {
    return this.endsWith(id, name, name.length);
  }

  /** Whether `text` ends with the id's name and is `prefixLength` characters longer. */
  endsWith(id: number, text: string, textLength: number, prefixLength = 0): boolean {
    const length = (this.lengths[id] ?? 0);
    if (length === 0) {
      const kept = this.texts.get(id) ?? '';
      return textLength === prefixLength + kept.length && text.endsWith(kept);
    }
    if (textLength !== prefixLength + length) return false;
    const offset = (this.offsets[id] ?? 0);
    const bytes = this.pageOf(offset);
    const at = offset & IN_PAGE;
    for (let i = 0; i < length; i++) if (bytes[at + i] !== text.charCodeAt(prefixLength + i)) return false;
    return true;
  }

  private pageOf(offset: number): Uint8Array {
    return this.pages[offset >>> PAGE_SHIFT] ?? NO_PAGE;
  }

  private allocate(size: number): number {
    const reused = this.freeBySize.get(size)?.pop();
    if (reused !== undefined) return reused;
    if (this.end + size > this.pages.length * PAGE_BYTES) {
      // The rest of the last page is too short for this name: it starts a new page.
      this.end = this.pages.length * PAGE_BYTES;
      this.pages.push(new Uint8Array(PAGE_BYTES));
    }
    const offset = this.end;
    this.end += size;
    return offset;
  }
}

function roundUp(length: number): number {
  return Math.ceil(length / GRANULE) * GRANULE;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}
