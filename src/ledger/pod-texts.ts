/**
 * A pod's texts that pack into the pod store's columns (packed-fields.ts): UID, resourceVersion, start time and
 * phase. What does not pack is kept as it is, beside the columns, so every text reads back exactly as it was given.
 */
import type { NameTable } from './name-table.js';
import type { PodColumns } from './pod-columns.js';
import { hashText, hashWord, packTimestamp, packUuid, packVersion, unpackTimestamp, unpackUuid, unpackVersion } from './packed-fields.js';

const EMPTY_VERSION = -1;
/** The resourceVersion is kept as text beside the columns. */
const VERSION_TEXT_KEPT = -2;
const NO_START = 0;
/** The start time is kept as text beside the columns. */
const START_TEXT_KEPT = 0xffffffff;
/** The phase is kept as text beside the columns (phase ids fit a byte). */
const PHASE_TEXT_KEPT = 255;

export class PodTexts {
  private readonly uids = new Map<number, string>();
  private readonly versions = new Map<number, string>();
  private readonly starts = new Map<number, string>();
  private readonly phaseTexts = new Map<number, string>();

  constructor(private readonly columns: PodColumns, private readonly phases: NameTable) {}

  set(id: number, uid: string, resourceVersion: string, phase: string, startTime: string | undefined): void {
    const c = this.columns;
    if (!packUuid(uid, c.uidWords, id * 4)) this.uids.set(id, uid);
    c.versions[id] = this.packedVersion(id, resourceVersion);
    c.phaseIds[id] = this.packedPhase(id, phase);
    c.startTimes[id] = this.packedStart(id, startTime);
  }

  /** Lets go of what the id holds (its phase's count, the texts kept beside). */
  clear(id: number): void {
    const phase = this.columns.phaseIds[id] ?? PHASE_TEXT_KEPT;
    if (phase !== PHASE_TEXT_KEPT) this.phases.release(phase);
    if (this.phaseTexts.size > 0) this.phaseTexts.delete(id);
    if (this.uids.size > 0) this.uids.delete(id);
    if (this.versions.size > 0) this.versions.delete(id);
    if (this.starts.size > 0) this.starts.delete(id);
  }

  uid(id: number): string {
    return this.keptUid(id) ?? unpackUuid(this.columns.uidWords, id * 4);
  }

  /** The UID when it did not pack (not a canonical UUID). */
  keptUid(id: number): string | undefined {
    return this.uids.size > 0 ? this.uids.get(id) : undefined;
  }

  /** The hash the UID index keeps the id under: of its words, or of its text when it did not pack. */
  uidHash(id: number): number {
    const text = this.keptUid(id);
    return text === undefined ? wordsHash(this.columns.uidWords, id * 4) : hashText(text);
  }

  resourceVersion(id: number): string {
    const packed = this.columns.versions[id] ?? EMPTY_VERSION;
    if (packed >= 0) return unpackVersion(packed);
    return packed === EMPTY_VERSION ? '' : this.versions.get(id) ?? '';
  }

  /** Whether the id's resourceVersion is `text` (compared as text). */
  sameVersion(id: number, text: string): boolean {
    const packed = packVersion(text);
    const stored = this.columns.versions[id] ?? EMPTY_VERSION;
    return packed !== undefined ? stored === packed : stored === VERSION_TEXT_KEPT && this.versions.get(id) === text;
  }

  phase(id: number): string {
    const phase = this.columns.phaseIds[id] ?? PHASE_TEXT_KEPT;
    return phase === PHASE_TEXT_KEPT ? this.phaseTexts.get(id) ?? '' : this.phases.name(phase);
  }

  startTime(id: number): string | undefined {
    const start = this.startTimeRef(id);
    return typeof start === 'number' ? unpackTimestamp(start) : start;
  }

  /** The start time as stored: packed seconds (`unpackTimestamp` makes the text), the text kept, or undefined. */
  startTimeRef(id: number): number | string | undefined {
    const start = this.columns.startTimes[id] ?? NO_START;
    if (start === NO_START) return undefined;
    return start === START_TEXT_KEPT ? this.starts.get(id) : start;
  }

  private packedVersion(id: number, text: string): number {
    if (text === '') return EMPTY_VERSION;
    const packed = packVersion(text);
    if (packed !== undefined) return packed;
    this.versions.set(id, text);
    return VERSION_TEXT_KEPT;
  }

  private packedStart(id: number, text: string | undefined): number {
    if (text === undefined) return NO_START;
    const packed = packTimestamp(text);
    if (packed !== undefined) return packed;
    this.starts.set(id, text);
    return START_TEXT_KEPT;
  }

  private packedPhase(id: number, phase: string): number {
    const packed = this.phases.acquire(phase);
    if (packed < PHASE_TEXT_KEPT) return packed;
    this.phases.release(packed);
    this.phaseTexts.set(id, phase);
    return PHASE_TEXT_KEPT;
  }
}

/** The hash of four UID words at `at`. */
export function wordsHash(words: Uint32Array, at: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < 4; i++) hash = hashWord(hash, words[at + i] ?? 0);
  return hash;
}
