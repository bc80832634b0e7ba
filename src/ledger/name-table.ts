/**
 * Names many pods share (namespaces, node names) held once, each under a small id that a pod's column stores. Counted:
 * a name no pod refers to any more is let go and its id handed out again, so churn (autoscaled node names) never
 * grows the table past what the cluster holds at once.
 */
export class NameTable {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly refs: number[] = [];
  private readonly freeIds: number[] = [];

  /** The name's id, counted once more (the caller releases it when its pod no longer refers to it). */
  acquire(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.freeIds.pop() ?? this.names.length;
      this.ids.set(name, id);
      this.names[id] = name;
      this.refs[id] = 0;
      this.added(id, name);
    }
    this.refs[id] = (this.refs[id] ?? 0) + 1;
    return id;
  }

  release(id: number): void {
    const refs = this.refs[id];
    if (refs === undefined || refs <= 0) throw new Error(`name table: release of unused id ${id}`);
    if (refs > 1) {
      this.refs[id] = refs - 1;
      return;
    }
    this.ids.delete(this.names[id] ?? '');
    this.names[id] = '';
    this.refs[id] = 0;
    this.freeIds.push(id);
  }

  name(id: number): string {
    return this.names[id] ?? '';
  }

  idOf(name: string): number | undefined {
    return this.ids.get(name);
  }

  /** Called when a name is added under `id` (a new id, or one handed out again). */
  protected added(_id: number, _name: string): void {}

  /** Names in use. */
  get size(): number {
    return this.ids.size;
  }
}

/** Namespaces, with the `namespace/` prefix of their keys built once each. */
export class NamespaceTable extends NameTable {
  private readonly prefixes: string[] = [];

  protected override added(id: number, name: string): void {
    this.prefixes[id] = name === '' ? '' : `${name}/`;
  }

  /** The key prefix of a namespace id: `namespace/`, or '' for cluster-scoped names. */
  prefix(id: number): string {
    return this.prefixes[id] ?? '';
  }
}
