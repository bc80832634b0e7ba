/**
 * Reads Kubernetes manifests from a file or a directory: YAML (multi-document) or JSON, single objects or lists
 * (`kubectl get -o yaml` prints a `v1 List`; the API returns typed lists like `PodList` whose items carry no kind).
 * Every object is checked enough that a broken edit is reported with file and position instead of half-loading.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { perKind } from '../../ledger/kinds.js';
import type { ClusterObject, ClusterObjectKind } from '../../ledger/objects.js';
import { ListItemError, splitJsonList, streamJsonList, type JsonListSplit } from '../json-list-items.js';
import { admitObject, forEachObject, itemKindOf, ManifestError, objectId, positionText, type Position } from './manifest-items.js';

export { ManifestError } from './manifest-items.js';

export interface LoadedManifests {
  objects: Record<ClusterObjectKind, ClusterObject[]>;
  /** Objects of kinds the ledger does not use, e.g. `ConfigMap default/x in demo.yaml`. */
  ignored: string[];
  files: string[];
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

export interface LoadOptions {
  /**
   * Trim each object as it is collected (cluster/kinds.ts), so full objects never pile up, and build each pod's ledger
   * entry then: a bound pod comes out as what the ledger keeps of it (ledger/pod-entry.ts, `prebuildPodEntry`).
   */
  trim?: boolean;
}

export async function loadManifests(path: string, options: LoadOptions = {}): Promise<LoadedManifests> {
  const files = await listManifestFiles(path);
  const result: LoadedManifests = {
    objects: perKind(() => []),
    ignored: [],
    files,
  };
  const seen = new SeenObjects(files);
  for (const file of files) {
    try {
      if (extname(file).toLowerCase() === '.json' && streamListFile(file, result, seen, options)) continue;
      // Bytes, not text: a JSON list is split on its bytes and decoded item by item (json-list-items.ts).
      const bytes = await readFile(file);
      const list = isJson(file, bytes) ? splitListOrFail(file, bytes) : undefined;
      if (list) collectListItems(file, list, result, seen, options);
      else {
        parseDocuments(file, bytes.toString('utf8')).forEach((doc, docIndex) => {
          forEachObject(doc, `document ${docIndex + 1}`, undefined, (object, where) => collect(file, where, object, result, seen, options));
        });
      }
    } catch (err) {
      if (err instanceof ManifestError && err.file === '') throw new ManifestError(file, err.where, err.problem);
      throw err;
    }
  }
  return result;
}

/** A `.json` file, or one whose first character after whitespace (and a byte-order mark) is `{`. */
function isJson(file: string, bytes: Uint8Array): boolean {
  if (extname(file).toLowerCase() === '.json') return true;
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09) i++;
  return bytes[i] === 0x7b;
}

function splitListOrFail(file: string, bytes: Uint8Array): JsonListSplit | undefined {
  try {
    return splitJsonList(bytes);
  } catch (err) {
    throw new ManifestError(file, '', `invalid JSON: ${(err as Error).message}`);
  }
}

/** A JSON List read item by item: each item is parsed, checked and trimmed before the next is parsed. */
function collectListItems(file: string, list: JsonListSplit, result: LoadedManifests, seen: SeenObjects, options: LoadOptions): void {
  const itemKind = itemKindOf((list.envelope as { kind?: unknown } | null)?.kind);
  const visit = (object: Record<string, unknown>, at: Position) => collect(file, at, object, result, seen, options);
  for (let i = 0; i < list.count; i++) {
    let item: unknown;
    try {
      item = JSON.parse(list.itemText(i));
    } catch (err) {
      throw new ManifestError(file, positionText(i), `invalid JSON: ${(err as Error).message}`);
    }
    forEachObject(item, i, itemKind, visit);
  }
}

/** Where an object was first defined, as the duplicate check keeps it: a number for a list item (see `SeenObjects`). */
type Definition = string | number;

/** What the duplicate check reads and writes. */
interface SeenLookup {
  get(id: string): Definition | undefined;
  set(id: string, file: string, where: Position): void;
  describe(definition: Definition): string;
}

/**
 * Where each object was first defined (`Pod ns/p` -> `file (document 1, items[3])`), for the duplicate check. A list
 * item is kept as one number naming the file and the item (`item * files + file`): its text, made for each of 150k
 * objects and kept until the load ends, was ~25 MiB that outlived the load's young generation.
 */
class SeenObjects implements SeenLookup {
  private ids = new Map<string, Definition>();
  private readonly fileIndex: Map<string, number>;

  constructor(private readonly files: readonly string[]) {
    this.fileIndex = new Map(files.map((file, i) => [file, i]));
  }

  get(id: string): Definition | undefined {
    return this.ids.get(id);
  }

  set(id: string, file: string, where: Position): void {
    this.ids.set(id, this.definition(file, where));
  }

  definition(file: string, where: Position): Definition {
    const index = this.fileIndex.get(file);
    return typeof where === 'number' && index !== undefined ? where * this.files.length + index : `${file} (${positionText(where)})`;
  }

  describe(definition: Definition): string {
    if (typeof definition === 'string') return definition;
    const file = this.files[definition % this.files.length] ?? '';
    return `${file} (${positionText(Math.floor(definition / this.files.length))})`;
  }

  /** Adds another file's ids; the larger map is kept and the smaller copied into it (one 150k-object file: no copy). */
  absorb(other: Map<string, Definition>): void {
    let [into, from] = [this.ids, other];
    if (from.size > into.size) [into, from] = [from, into];
    for (const [id, at] of from) into.set(id, at);
    this.ids = into;
  }
}

/**
 * One file's objects held apart until the whole file is good, then merged: a list that turns out malformed half-way
 * is read again whole (and reported as it always has) with nothing of it kept. Duplicates are checked against both
 * the earlier files and the file's own earlier objects.
 */
class StagedFile {
  readonly staged: LoadedManifests = { objects: perKind(() => []), ignored: [], files: [] };
  private readonly stagedSeen = new Map<string, Definition>();
  readonly seen: SeenLookup;

  constructor(private readonly earlier: SeenObjects) {
    this.seen = {
      get: (id: string) => this.stagedSeen.get(id) ?? earlier.get(id),
      set: (id: string, file: string, where: Position) => void this.stagedSeen.set(id, earlier.definition(file, where)),
      describe: (definition: Definition) => earlier.describe(definition),
    };
  }

  mergeInto(result: LoadedManifests): void {
    for (const kind of Object.keys(this.staged.objects) as ClusterObjectKind[]) {
      const into = result.objects[kind];
      if (into.length === 0) result.objects[kind] = this.staged.objects[kind];
      else for (const object of this.staged.objects[kind]) into.push(object);
    }
    result.ignored.push(...this.staged.ignored);
    this.earlier.absorb(this.stagedSeen);
  }
}

/**
 * A `.json` list read in chunks and collected item by item as it is scanned (streamJsonList): neither the file nor
 * its full objects are ever held whole, each parsed item is garbage once trimmed. Objects are staged and merged
 * only when the whole file is good. False (nothing merged) when the file is not a list with a kind-bearing head or
 * its structure is malformed: the whole-file path then reads it and reports exactly as it always has.
 */
function streamListFile(file: string, result: LoadedManifests, seen: SeenObjects, options: LoadOptions): boolean {
  const staging = new StagedFile(seen);
  let headKind: unknown;
  const fd = openSync(file, 'r');
  let streamed: { envelope: unknown } | undefined;
  try {
    const visit = (object: Record<string, unknown>, at: Position) => collect(file, at, object, staging.staged, staging.seen, options);
    streamed = streamJsonList((into, offset, length) => readSync(fd, into, offset, length, null), (item, i) => {
      forEachObject(item, i, itemKindOf(headKind), visit);
    }, { onHead: (head) => {
      headKind = head['kind'];
      return Object.hasOwn(head, 'kind');
    } });
  } catch (err) {
    if (err instanceof ListItemError) throw new ManifestError(file, `document 1, items[${err.index}]`, `invalid JSON: ${err.detail}`);
    if (err instanceof SyntaxError) return false;
    throw err;
  } finally {
    closeSync(fd);
  }
  if (!streamed || (streamed.envelope as { kind?: unknown } | null)?.kind !== headKind) return false;
  staging.mergeInto(result);
  return true;
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

function collect(
  file: string,
  where: Position,
  object: Record<string, unknown>,
  result: LoadedManifests,
  seen: SeenLookup,
  options: LoadOptions,
): void {
  const admitted = admitObject(file, where, object, options.trim ?? false);
  if ('ignored' in admitted) result.ignored.push(admitted.ignored);
  else keep(file, where, admitted.kind, admitted.object, result, seen);
}

/** The duplicate check (across every file read so far), then the object is kept. */
function keep(file: string, where: Position, kind: ClusterObjectKind, object: ClusterObject, result: LoadedManifests,
  seen: SeenLookup): void {
  const id = objectId(kind, object);
  const previous = seen.get(id);
  if (previous !== undefined) throw new ManifestError(file, positionText(where), `duplicate ${id} (also defined at ${seen.describe(previous)})`);
  seen.set(id, file, where);
  result.objects[kind].push(object);
}
