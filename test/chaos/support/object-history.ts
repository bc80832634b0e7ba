/**
 * Every version the fake API server ever committed, per object, with the moment it was committed on the same clock
 * as the fake's request log (performance.now()). Write audits ask "did this object have that resourceVersion before
 * this request arrived, and what did it look like then?" without racing a watch of their own.
 */
import type { FakeApiServer, KubeObject, StoredEvent } from '../../support/fake-apiserver/index.js';

export interface ObjectVersion {
  resourceVersion: string;
  /** The object as stored at this version (for a deletion: its last state). */
  object: KubeObject;
  deleted: boolean;
  /** performance.now() when committed (comparable with RecordedRequest.startedAt). */
  committedAt: number;
}

export function objectKeyOf(object: KubeObject): string {
  const meta = object.metadata ?? {};
  return meta.namespace ? `${meta.namespace}/${meta.name ?? ''}` : meta.name ?? '';
}

export class ObjectHistory {
  private readonly versions = new Map<string, ObjectVersion[]>();

  constructor(api: FakeApiServer) {
    api.onCommit((resource, event) => this.record(resource, event));
  }

  /** All versions of one object, oldest first; `resource` as the fake names it ("pods", "nodes"). */
  of(resource: string, key: string): readonly ObjectVersion[] {
    return this.versions.get(`${resource}|${key}`) ?? [];
  }

  /** The version with that RV, if the object ever had it (deletion versions excluded). */
  version(resource: string, key: string, resourceVersion: string): ObjectVersion | undefined {
    return this.of(resource, key).find((v) => !v.deleted && v.resourceVersion === resourceVersion);
  }

  /** Whether the object existed (created, not yet deleted) at `at` (performance.now()). */
  existedAt(resource: string, key: string, at: number): boolean {
    let exists = false;
    for (const v of this.of(resource, key)) {
      if (v.committedAt > at) break;
      exists = !v.deleted;
    }
    return exists;
  }

  private record(resource: string, event: StoredEvent): void {
    const id = `${resource}|${objectKeyOf(event.object)}`;
    let list = this.versions.get(id);
    if (!list) {
      list = [];
      this.versions.set(id, list);
    }
    list.push({
      resourceVersion: event.resourceVersion.toString(),
      object: structuredClone(event.object),
      deleted: event.type === 'DELETED',
      committedAt: performance.now(),
    });
  }
}
