/**
 * Reads Kubernetes manifests from a file or a directory: YAML (multi-document) or JSON, single objects or lists
 * (`kubectl get -o yaml` prints a `v1 List`; the API returns typed lists like `PodList` whose items carry no kind).
 * Every object passes the admission rule (../admission.ts) and goes to a visitor as soon as it is read, so a load
 * never holds the snapshot: the snapshot source offers each object to a replace session (what is unchanged is garbage
 * at once). A broken file (not JSON/YAML, an object without a kind, a duplicate) ends the load with an error naming
 * file and position. The work is done in event-loop slices (event-loop-slices.ts): a large file never holds the
 * event loop for long.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { perKind } from '../../ledger/kinds.js';
import type { ClusterObject, ClusterObjectKind } from '../../ledger/objects.js';
import type { QuarantineNote } from '../../ledger/quarantine.js';
import type { DropReason } from '../admission.js';
import { EventLoopSlices } from '../event-loop-slices.js';
import { splitJsonList, type JsonListSplit } from '../json-list-items.js';
import { ListItemError, streamJsonListSteps } from '../json-list-stream.js';
import { hashId, SeenHashes, type IdHash } from './seen-hashes.js';
import { admitObject, forEachObject, itemKindOf, ManifestError, objectId, positionText, type Position } from './manifest-items.js';

export { ManifestError } from './manifest-items.js';

/** Where a load's objects go, one at a time, in file order. */
export interface ManifestVisitor {
  object(kind: ClusterObjectKind, object: ClusterObject): void;
  quarantine(kind: ClusterObjectKind, note: QuarantineNote): void;
}

export interface DroppedObject {
  kind: ClusterObjectKind;
  reason: DropReason;
  message: string;
}

/** What a load tells beside its objects. */
export interface ManifestReport {
  /** Objects of kinds the ledger does not use, e.g. `ConfigMap default/x in demo.yaml`. */
  ignored: string[];
  /** Objects the admission rule dropped (wrong kind or apiVersion, no name), each named by file and position. */
  dropped: DroppedObject[];
  files: string[];
}

export interface LoadedManifests extends ManifestReport {
  objects: Record<ClusterObjectKind, ClusterObject[]>;
  quarantined: QuarantineNote[];
}

export interface LoadOptions {
  /** Trim each object as it is read (cluster/kinds.ts), so full objects never pile up. */
  trim?: boolean;
  /** The event-loop slices to work in (a fresh set of 10 ms slices by default). */
  slices?: EventLoopSlices;
  /** The duplicate check's hash of an object id (tests force collisions with it). */
  idHash?: (id: string) => IdHash;
}

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

export async function listManifestFiles(path: string): Promise<string[]> {
  const info = await stat(path);
  if (info.isFile()) return [path];
  const out: string[] = [];
  const entries = await readdir(path, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue;
    const full = join(path, entry.name);
    if (entry.isDirectory()) out.push(...(await listManifestFiles(full)));
    else if (entry.isFile() && MANIFEST_EXTENSIONS.has(extname(entry.name).toLowerCase())) out.push(full);
  }
  return out;
}

/** Every object of the manifests at `path`, collected by kind (tests and tools; the snapshot source streams). */
export async function loadManifests(path: string, options: LoadOptions = {}): Promise<LoadedManifests> {
  const objects = perKind((): ClusterObject[] => []);
  const quarantined: QuarantineNote[] = [];
  const report = await readManifests(path, {
    object: (kind, object) => void objects[kind].push(object),
    quarantine: (_kind, note) => void quarantined.push(note),
  }, options);
  return { ...report, objects, quarantined };
}

/**
 * Reads the manifests at `path` into `visitor`; throws ManifestError for a broken file. The first pass checks for
 * duplicates by hash and holds back an object whose id's hash was seen; only when it held one back does a second
 * pass read the files again, compare those ids exactly (a duplicate is reported with both positions) and hand on
 * what was held back by a hash collision alone.
 */
export async function readManifests(path: string, visitor: ManifestVisitor, options: LoadOptions = {}): Promise<ManifestReport> {
  const files = await listManifestFiles(path);
  const slices = options.slices ?? new EventLoopSlices();
  const firstPass = new HashedFirstPass(files, options.idHash ?? hashId);
  const reader = new ManifestReader(visitor, options.trim ?? false, slices, firstPass);
  await readEach(files, reader);
  if (firstPass.heldBack.size > 0) {
    const settle = new ExactSuspects(firstPass, options.idHash ?? hashId);
    await readEach(files, new ManifestReader(visitor, options.trim ?? false, slices, settle));
  }
  return { ignored: reader.ignored, dropped: reader.dropped, files };
}

async function readEach(files: readonly string[], reader: ManifestReader): Promise<void> {
  for (const file of files) {
    try {
      await reader.readFile(file);
    } catch (err) {
      if (err instanceof ManifestError && err.file === '') throw new ManifestError(file, err.where, err.problem);
      throw err;
    }
  }
}

/** A `.json` file, or one whose first character after whitespace (and a byte-order mark) is `{`. */
function isJson(file: string, bytes: Uint8Array): boolean {
  if (extname(file).toLowerCase() === '.json') return true;
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09) i++;
  return bytes[i] === 0x7b;
}

/** One load: the files in order, every object admitted, checked for duplicates and handed to the visitor. */
class ManifestReader {
  readonly ignored: string[] = [];
  readonly dropped: DroppedObject[] = [];
  constructor(private readonly visitor: ManifestVisitor, private readonly trim: boolean,
    private readonly slices: EventLoopSlices, private readonly duplicates: DuplicateCheck) {}

  async readFile(file: string): Promise<void> {
    if (extname(file).toLowerCase() === '.json' && await this.streamListFile(file)) return;
    // Bytes, not text: a JSON list is split on its bytes and decoded item by item (json-list-items.ts).
    const bytes = await readFile(file);
    const list = isJson(file, bytes) ? splitListOrFail(file, bytes) : undefined;
    if (list) {
      await this.collectListItems(file, list);
      return;
    }
    for (const [docIndex, doc] of parseDocuments(file, bytes.toString('utf8')).entries()) {
      forEachObject(doc, `document ${docIndex + 1}`, undefined, (object, where) => this.collect(file, where, object));
      await this.slices.maybePause();
    }
  }

  /** A JSON List split in place, item by item: each item is parsed, admitted and handed on before the next. */
  private async collectListItems(file: string, list: JsonListSplit): Promise<void> {
    const itemKind = itemKindOf((list.envelope as { kind?: unknown } | null)?.kind);
    const visit = (object: Record<string, unknown>, at: Position) => this.collect(file, at, object);
    for (let i = 0; i < list.count; i++) {
      let item: unknown;
      try {
        item = JSON.parse(list.itemText(i));
      } catch (err) {
        throw new ManifestError(file, positionText(i), `invalid JSON: ${(err as Error).message}`);
      }
      forEachObject(item, i, itemKind, visit);
      await this.slices.maybePause();
    }
  }

  /**
   * A `.json` list read in chunks and handed on item by item as it is scanned (streamJsonListSteps): neither the file
   * nor its full objects are ever held whole. False, before any item was handed on, when the file is not a list with a
   * kind-bearing head: the whole-file path then reads it. A list whose structure breaks after items were handed on is
   * reported as invalid JSON, as the whole-file parse would report it.
   */
  private async streamListFile(file: string): Promise<boolean> {
    let headKind: unknown;
    let delivered = false;
    const fd = openSync(file, 'r');
    let streamed: { envelope: unknown } | undefined;
    try {
      const visit = (object: Record<string, unknown>, at: Position) => this.collect(file, at, object);
      const steps = streamJsonListSteps((into, offset, length) => readSync(fd, into, offset, length, null), (item, i) => {
        delivered = true;
        forEachObject(item, i, itemKindOf(headKind), visit);
      }, { onHead: (head) => {
        headKind = head['kind'];
        return Object.hasOwn(head, 'kind');
      } });
      for (let step = steps.next(); ; step = steps.next()) {
        if (step.done) {
          streamed = step.value;
          break;
        }
        if (this.slices.due()) await this.slices.pause();
      }
    } catch (err) {
      if (err instanceof ListItemError) throw new ManifestError(file, `document 1, items[${err.index}]`, `invalid JSON: ${err.detail}`);
      if (err instanceof SyntaxError) {
        if (delivered) throw new ManifestError(file, '', `invalid JSON: ${err.message}`);
        return false;
      }
      throw err;
    } finally {
      closeSync(fd);
    }
    if (!streamed) return false;
    if ((streamed.envelope as { kind?: unknown } | null)?.kind !== headKind) throw new ManifestError(file, '', 'invalid JSON: the list\'s kind is given twice');
    return true;
  }

  /** The admission rule, the duplicate check (across every file read so far), then the visitor if the check says so. */
  private collect(file: string, where: Position, object: Record<string, unknown>): void {
    const admitted = admitObject(file, where, object, this.trim);
    if ('ignored' in admitted) {
      this.ignored.push(admitted.ignored);
      return;
    }
    if ('dropped' in admitted) {
      this.dropped.push({ kind: admitted.kind, reason: admitted.dropped, message: admitted.message });
      return;
    }
    const id = 'object' in admitted ? objectId(admitted.kind, admitted.object) : `${admitted.kind} ${admitted.quarantined.key}`;
    if (!this.duplicates.handOn(id, file, where)) return;
    if ('object' in admitted) this.visitor.object(admitted.kind, admitted.object);
    else this.visitor.quarantine(admitted.kind, admitted.quarantined);
  }
}

function splitListOrFail(file: string, bytes: Uint8Array): JsonListSplit | undefined {
  try {
    return splitJsonList(bytes);
  } catch (err) {
    throw new ManifestError(file, '', `invalid JSON: ${(err as Error).message}`);
  }
}

/** Whether an admitted object goes on to the visitor in this pass; throws ManifestError for a duplicate. */
interface DuplicateCheck {
  handOn(id: string, file: string, where: Position): boolean;
}

/**
 * Where an object is defined: a number for a list item (`item * files + file`), its text otherwise. A load has a
 * million list items; a number costs nothing to keep.
 */
type Definition = string | number;

class Definitions {
  private readonly fileIndex: Map<string, number>;

  constructor(private readonly files: readonly string[]) {
    this.fileIndex = new Map(files.map((file, i) => [file, i]));
  }

  of(file: string, where: Position): Definition {
    const index = this.fileIndex.get(file);
    return typeof where === 'number' && index !== undefined ? where * this.files.length + index : `${file} (${positionText(where)})`;
  }

  describe(definition: Definition): string {
    if (typeof definition === 'string') return definition;
    const file = this.files[definition % this.files.length] ?? '';
    return `${file} (${positionText(Math.floor(definition / this.files.length))})`;
  }
}

const hashKey = ([high, low]: IdHash): string => `${high}:${low}`;

/** The first pass: every id's hash kept; an object whose hash was seen is held back (a duplicate, or a collision). */
class HashedFirstPass implements DuplicateCheck {
  private readonly seen = new SeenHashes();
  readonly definitions: Definitions;
  /** The hashes seen more than once, and where each held-back object is defined. */
  readonly suspects = new Set<string>();
  readonly heldBack = new Set<Definition>();

  constructor(files: readonly string[], private readonly hash: (id: string) => IdHash) {
    this.definitions = new Definitions(files);
  }

  handOn(id: string, file: string, where: Position): boolean {
    const hash = this.hash(id);
    if (this.seen.add(hash)) return true;
    this.suspects.add(hashKey(hash));
    this.heldBack.add(this.definitions.of(file, where));
    return false;
  }
}

/**
 * The second pass: the ids of the suspect hashes compared exactly, in file order; a repeated id is a duplicate. What
 * the first pass held back and is no duplicate (its hash collided with another id's) goes on to the visitor now.
 */
class ExactSuspects implements DuplicateCheck {
  private readonly firstDefined = new Map<string, Definition>();

  constructor(private readonly firstPass: HashedFirstPass, private readonly hash: (id: string) => IdHash) {}

  handOn(id: string, file: string, where: Position): boolean {
    if (!this.firstPass.suspects.has(hashKey(this.hash(id)))) return false;
    const definitions = this.firstPass.definitions;
    const previous = this.firstDefined.get(id);
    if (previous !== undefined) throw new ManifestError(file, positionText(where), `duplicate ${id} (also defined at ${definitions.describe(previous)})`);
    const definition = definitions.of(file, where);
    this.firstDefined.set(id, definition);
    return this.firstPass.heldBack.has(definition);
  }
}

function parseDocuments(file: string, text: string): unknown[] {
  const trimmed = text.trimStart();
  if (extname(file).toLowerCase() === '.json' || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      return Array.isArray(parsed) ? parsed : [parsed];
    } catch (err) {
      if (extname(file).toLowerCase() === '.json') throw new ManifestError(file, '', `invalid JSON: ${(err as Error).message}`);
    }
  }
  const docs = parseAllDocuments(text, { prettyErrors: false });
  const out: unknown[] = [];
  for (const [i, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
    const error = doc.errors[0];
    if (error) throw new ManifestError(file, `document ${i + 1}`, `invalid YAML: ${error.message}`);
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}
