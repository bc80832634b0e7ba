/**
 * Pod names as bytes in one growing buffer instead of a string each (a short string costs its header, padding and a
 * pointer; a name in the arena costs its bytes rounded up to 4 and five bytes of columns). Names are DNS subdomains:
 * ASCII, at most 253 characters; anything else is kept as a string beside the arena. A freed slot goes on the free
 * list of its size and is taken by the next name of that size (the pods of one workload have names of one length),
 * so churn reuses space instead of fragmenting the arena.
 */
const GRANULE = 4;
const MAX_ARENA_NAME = 255;
const INITIAL_BYTES = 64 * 1024;

export class NameArena {
  private bytes = new Uint8Array(INITIAL_BYTES);
  private end = 0;
  private readonly freeBySize = new Map<number, number[]>();
  /** Per id: where its name starts in `bytes`, and its length (0 with the name kept as a string in `texts`). */
  offsets = new Uint32Array(0);
  lengths = new Uint8Array(0);
  private readonly texts = new Map<number, string>();

  /** Makes room for ids below `capacity`. */
  growIds(capacity: number): void {
    const offsets = new Uint32Array(capacity);
    offsets.set(this.offsets);
    const lengths = new Uint8Array(capacity);
    lengths.set(this.lengths);
    this.offsets = offsets;
    this.lengths = lengths;
  }

  set(id: number, name: string): void {
    const length = name.length;
    if (length === 0 || length > MAX_ARENA_NAME || !isAscii(name)) {
      this.lengths[id] = 0;
      this.texts.set(id, name);
      return;
    }
    const offset = this.allocate(roundUp(length));
    for (let i = 0; i < length; i++) this.bytes[offset + i] = name.charCodeAt(i);
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
    return String.fromCharCode.apply(null, this.bytes.subarray(offset, offset + length) as unknown as number[]);
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
    const bytes = this.bytes;
    for (let i = 0; i < length; i++) if (bytes[offset + i] !== text.charCodeAt(prefixLength + i)) return false;
    return true;
  }

  private allocate(size: number): number {
    const reused = this.freeBySize.get(size)?.pop();
    if (reused !== undefined) return reused;
    if (this.end + size > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.end + size, Math.ceil(this.bytes.length * 1.25)));
      grown.set(this.bytes.subarray(0, this.end));
      this.bytes = grown;
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
