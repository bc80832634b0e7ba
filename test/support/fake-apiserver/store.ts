/**
 * Object storage with a bounded per-resource event history, like the watch cache in front of etcd. Every commit takes
 * the next global resourceVersion. Any past state still inside the history can be rebuilt (for exact-RV lists and
 * paginated snapshots); anything older is "compacted" and answers 410 Expired.
 */
import { keyOf, type KubeObject, type ResourceType } from './resources.js';
import type { ResourceVersionClock } from './resource-versions.js';

export type StoredEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  readonly type: StoredEventType;
  readonly resourceVersion: bigint;
  /** The object after the write; for DELETED the last state, carrying the deletion's resourceVersion. */
  readonly object: KubeObject;
  /** The object before the write (absent for ADDED). */
  readonly previous?: KubeObject;
}

export type StoreListener = (type: ResourceType, event: StoredEvent) => void;

interface Table {
  readonly objects: Map<string, KubeObject>;
  readonly history: StoredEvent[];
  /** Every event with a resourceVersion at or below this is gone from the history. */
  compactedThrough: bigint;
  /**
   * The last sorted state handed out (by the resourceVersion it shows; 'current' for the live state): a paginated list
   * of 150k pods asks for the same state once per page, and sorting it anew for each of 300 pages made a large list
   * take minutes. A past resourceVersion's state never changes, so only the live one is dropped by a commit (a list
   * paged under churn keeps its snapshot); compaction drops either.
   */
  sorted?: { at: bigint | 'current'; objects: KubeObject[] };
}

function byKey(a: KubeObject, b: KubeObject): number {
  const ka = keyOf(a);
  const kb = keyOf(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export class ObjectStore {
  private readonly tables = new Map<ResourceType, Table>();
  private readonly listeners: StoreListener[] = [];
  /** Every resource starts empty at the initial resourceVersion, so any later state of it can be rebuilt. */
  private readonly initialResourceVersion: bigint;

  constructor(private readonly clock: ResourceVersionClock, private readonly historyLimit: number) {
    this.initialResourceVersion = clock.current();
  }

  subscribe(listener: StoreListener): void {
    this.listeners.push(listener);
  }

  get(type: ResourceType, key: string): KubeObject | undefined {
    const found = this.table(type).objects.get(key);
    return found === undefined ? undefined : structuredClone(found);
  }

  /** Current objects sorted by storage key (namespace, then name). */
  currentObjects(type: ResourceType): KubeObject[] {
    const table = this.table(type);
    if (table.sorted?.at === 'current') return table.sorted.objects;
    const objects = [...table.objects.values()].sort(byKey);
    table.sorted = { at: 'current', objects };
    return objects;
  }

  compactedThrough(type: ResourceType): bigint {
    return this.table(type).compactedThrough;
  }

  /** Objects as they were at `resourceVersion`, sorted by key; undefined when that state is compacted away. */
  objectsAt(type: ResourceType, resourceVersion: bigint): KubeObject[] | undefined {
    const table = this.table(type);
    if (resourceVersion < table.compactedThrough) return undefined;
    if (table.sorted?.at === resourceVersion) return table.sorted.objects;
    // Nothing written since: the current state, already sorted for the list that handed out this resourceVersion.
    const newest = table.history[table.history.length - 1];
    if (newest === undefined || newest.resourceVersion <= resourceVersion) return this.currentObjects(type);
    const state = new Map(table.objects);
    for (let i = table.history.length - 1; i >= 0; i -= 1) {
      const event = table.history[i];
      if (event === undefined || event.resourceVersion <= resourceVersion) break;
      if (event.previous === undefined) state.delete(keyOf(event.object));
      else state.set(keyOf(event.previous), event.previous);
    }
    const objects = [...state.values()].sort(byKey);
    table.sorted = { at: resourceVersion, objects };
    return objects;
  }

  /** Events strictly after `resourceVersion`; undefined when some of them were compacted away. */
  eventsAfter(type: ResourceType, resourceVersion: bigint): StoredEvent[] | undefined {
    const table = this.table(type);
    if (resourceVersion < table.compactedThrough) return undefined;
    // The history is in resourceVersion order: find the first later event, do not scan the rest.
    let low = 0;
    let high = table.history.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (table.history[middle]!.resourceVersion <= resourceVersion) low = middle + 1;
      else high = middle;
    }
    return table.history.slice(low);
  }

  /** Drops the history of one resource (or all): any older resourceVersion now answers 410. */
  compact(type?: ResourceType): void {
    const tables = type === undefined ? [...this.tables.values()] : [this.table(type)];
    for (const table of tables) {
      table.history.length = 0;
      table.compactedThrough = this.clock.current();
      table.sorted = undefined;
    }
  }

  /** Stores `next` (or removes `previous` for DELETED) under a fresh resourceVersion and notifies watchers. */
  commit(type: ResourceType, eventType: StoredEventType, next: KubeObject, previous?: KubeObject): KubeObject {
    const table = this.table(type);
    const resourceVersion = this.clock.next();
    const object = structuredClone(next);
    object.metadata = { ...object.metadata, resourceVersion: resourceVersion.toString() };
    if (table.sorted?.at === 'current') table.sorted = undefined;
    if (eventType === 'DELETED') table.objects.delete(keyOf(object));
    else table.objects.set(keyOf(object), object);
    const event: StoredEvent = previous === undefined
      ? { type: eventType, resourceVersion, object }
      : { type: eventType, resourceVersion, object, previous };
    this.remember(table, event);
    for (const listener of this.listeners) listener(type, event);
    return structuredClone(object);
  }

  private remember(table: Table, event: StoredEvent): void {
    table.history.push(event);
    while (table.history.length > this.historyLimit) {
      const dropped = table.history.shift();
      if (dropped !== undefined) table.compactedThrough = dropped.resourceVersion;
    }
  }

  private table(type: ResourceType): Table {
    let table = this.tables.get(type);
    if (table === undefined) {
      table = { objects: new Map(), history: [], compactedThrough: this.initialResourceVersion };
      this.tables.set(type, table);
    }
    return table;
  }
}
