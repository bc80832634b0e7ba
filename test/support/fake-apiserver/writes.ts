/**
 * Write semantics of kube-apiserver for the served resources: create, update (PUT), patch, delete and pod binding,
 * with resourceVersion preconditions, the status subresource split, and no-op writes that do not bump the RV.
 * `origin: 'test'` marks writes made through the programmatic API: fixtures are stored as given and always committed.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { alreadyExists, badRequest, conflict, invalid, notFound } from './kube-status.js';
import { applyPatch, PatchError, type PatchContentType } from './patch.js';
import { apiVersionOf, objectKey, type KubeObject, type KubeObjectMeta, type ResourceType } from './resources.js';
import type { ObjectStore } from './store.js';

export type WriteOrigin = 'api' | 'test';
export type Subresource = 'status' | undefined;

export interface DeletePreconditions {
  resourceVersion?: string;
  uid?: string;
}

function rfc3339Now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return Array.from({ length: 5 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
}

function asObject(body: unknown): KubeObject {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
  const object = structuredClone(body) as KubeObject;
  object.metadata = { ...(object.metadata ?? {}) };
  return object;
}

function meta(object: KubeObject): KubeObjectMeta {
  return object.metadata ?? {};
}

/** Ignores resourceVersion so a write that changes nothing is recognised as a no-op. */
function sameContent(a: KubeObject, b: KubeObject): boolean {
  return isDeepStrictEqual({ ...a, metadata: { ...a.metadata, resourceVersion: '' } }, { ...b, metadata: { ...b.metadata, resourceVersion: '' } });
}

export class ResourceWriter {
  constructor(private readonly store: ObjectStore) {}

  create(type: ResourceType, pathNamespace: string | undefined, body: unknown, origin: WriteOrigin): KubeObject {
    const object = asObject(body);
    const metadata = meta(object);
    this.placeInNamespace(type, object, pathNamespace, origin);
    if (!metadata.name && metadata.generateName) metadata.name = `${metadata.generateName}${randomSuffix()}`;
    if (!metadata.name) throw invalid(this.target(type, ''), `${type.kind} "" is invalid: metadata.name: Required value: name or generateName is required`);
    if (this.store.get(type, objectKey(metadata.namespace, metadata.name)) !== undefined) {
      throw alreadyExists(this.target(type, metadata.name));
    }
    object.apiVersion = apiVersionOf(type);
    object.kind = type.kind;
    delete metadata.resourceVersion;
    metadata.uid = origin === 'test' && metadata.uid ? metadata.uid : randomUUID();
    metadata.creationTimestamp = origin === 'test' && metadata.creationTimestamp ? metadata.creationTimestamp : rfc3339Now();
    metadata.generation ??= 1;
    if (origin === 'api') this.resetStatusOnCreate(type, object);
    return this.store.commit(type, 'ADDED', object);
  }

  /** PUT: with `subresource: 'status'` only status changes; otherwise everything but status (when it has one). */
  update(type: ResourceType, namespace: string | undefined, name: string, body: unknown, subresource: Subresource, origin: WriteOrigin): KubeObject {
    const current = this.existing(type, namespace, name);
    const incoming = asObject(body);
    if (meta(incoming).name !== undefined && meta(incoming).name !== name) {
      throw badRequest(`the name of the object (${meta(incoming).name ?? ''}) does not match the name on the URL (${name})`);
    }
    this.checkResourceVersion(type, current, meta(incoming).resourceVersion);
    return this.commitUnlessNoop(type, current, incoming, subresource, origin);
  }

  patch(type: ResourceType, namespace: string | undefined, name: string, contentType: PatchContentType, patch: unknown, subresource: Subresource, origin: WriteOrigin): KubeObject {
    const current = this.existing(type, namespace, name);
    let patched: KubeObject;
    try {
      patched = asObject(applyPatch(contentType, current, patch));
    } catch (error) {
      if (error instanceof PatchError) throw error.code === 400 ? badRequest(error.message) : invalid(this.target(type, name), error.message);
      throw error;
    }
    this.checkResourceVersion(type, current, meta(patched).resourceVersion);
    return this.commitUnlessNoop(type, current, patched, subresource, origin);
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, preconditions: DeletePreconditions = {}): KubeObject {
    const current = this.existing(type, namespace, name);
    if (preconditions.uid && preconditions.uid !== meta(current).uid) {
      throw conflict(this.target(type, name), `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${meta(current).uid ?? ''}`);
    }
    if (preconditions.resourceVersion && preconditions.resourceVersion !== meta(current).resourceVersion) {
      throw conflict(this.target(type, name), `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${meta(current).resourceVersion ?? ''}`);
    }
    return this.store.commit(type, 'DELETED', current, current);
  }

  /** The pods/binding subresource: sets spec.nodeName once, marks PodScheduled, clears status.nominatedNodeName. */
  bind(pods: ResourceType, namespace: string, podName: string, nodeName: string): KubeObject {
    const current = this.existing(pods, namespace, podName);
    const spec = { ...(current['spec'] as Record<string, unknown> | undefined) };
    if (typeof spec['nodeName'] === 'string' && spec['nodeName'] !== '') {
      throw conflict(this.target(pods, podName), `pod ${podName} is already assigned to node "${spec['nodeName']}"`);
    }
    const status = { ...(current['status'] as Record<string, unknown> | undefined) };
    delete status['nominatedNodeName'];
    const conditions = (Array.isArray(status['conditions']) ? status['conditions'] : []) as Array<Record<string, unknown>>;
    status['conditions'] = [...conditions.filter((c) => c['type'] !== 'PodScheduled'),
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339Now() }];
    return this.store.commit(pods, 'MODIFIED', { ...current, spec: { ...spec, nodeName }, status }, current);
  }

  /** The real server skips writes that change nothing (no new RV, no event); test fixtures always commit. */
  private commitUnlessNoop(type: ResourceType, current: KubeObject, incoming: KubeObject, subresource: Subresource, origin: WriteOrigin): KubeObject {
    const [next, previous] = this.merged(type, current, incoming, subresource, origin);
    if (origin === 'api' && sameContent(next, previous)) return previous;
    return this.store.commit(type, 'MODIFIED', next, previous);
  }

  private merged(type: ResourceType, current: KubeObject, incoming: KubeObject, subresource: Subresource, origin: WriteOrigin): [KubeObject, KubeObject] {
    if (subresource === 'status') return [this.statusUpdate(type, current, incoming), current];
    const next: KubeObject = { ...incoming, apiVersion: apiVersionOf(type), kind: type.kind };
    const currentMeta = meta(current);
    const { resourceVersion: _ignored, ...incomingMeta } = meta(incoming);
    next.metadata = {
      ...incomingMeta, name: currentMeta.name, uid: currentMeta.uid, creationTimestamp: currentMeta.creationTimestamp,
      ...(currentMeta.namespace ? { namespace: currentMeta.namespace } : {}),
    };
    if (origin === 'api' && type.hasStatus) next['status'] = current['status'];
    if (origin === 'api') this.checkPodSpecUpdate(type, current, next);
    if (!isDeepStrictEqual(next['spec'], current['spec'])) next.metadata.generation = (currentMeta.generation ?? 1) + 1;
    else next.metadata.generation = currentMeta.generation;
    return [next, current];
  }

  /**
   * A status write changes status only, except for pods: kube-apiserver's pod status strategy resets just spec,
   * deletionTimestamp and ownerReferences, so labels and annotations written through pods/status are kept.
   */
  private statusUpdate(type: ResourceType, current: KubeObject, incoming: KubeObject): KubeObject {
    const next: KubeObject = { ...current, status: incoming['status'] };
    if (type.resource !== 'pods' || type.group !== '') return next;
    const { labels, annotations } = meta(incoming);
    const metadata: KubeObjectMeta = { ...meta(current) };
    if (labels === undefined) delete metadata.labels; else metadata.labels = labels;
    if (annotations === undefined) delete metadata.annotations; else metadata.annotations = annotations;
    return { ...next, metadata };
  }

  /** Pods are bound once: an update may not move spec.nodeName (the real validation forbids far more). */
  private checkPodSpecUpdate(type: ResourceType, current: KubeObject, next: KubeObject): void {
    if (type.resource !== 'pods' || type.group !== '') return;
    const before = (current['spec'] as Record<string, unknown> | undefined)?.['nodeName'];
    const after = (next['spec'] as Record<string, unknown> | undefined)?.['nodeName'];
    if (before !== after) {
      throw invalid(this.target(type, meta(current).name ?? ''), `Pod "${meta(current).name ?? ''}" is invalid: spec: Forbidden: pod updates may not change fields other than \`spec.containers[*].image\`, \`spec.initContainers[*].image\`, \`spec.activeDeadlineSeconds\`, \`spec.tolerations\` (only additions to existing tolerations), \`spec.terminationGracePeriodSeconds\` (allow it to be set to 1 if it was previously negative)`);
    }
  }

  private checkResourceVersion(type: ResourceType, current: KubeObject, precondition: string | undefined): void {
    if (precondition && precondition !== meta(current).resourceVersion) throw conflict(this.target(type, meta(current).name ?? ''));
  }

  private existing(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const current = this.store.get(type, objectKey(type.namespaced ? namespace : undefined, name));
    if (current === undefined) throw notFound(this.target(type, name));
    return current;
  }

  private placeInNamespace(type: ResourceType, object: KubeObject, pathNamespace: string | undefined, origin: WriteOrigin): void {
    const metadata = meta(object);
    if (!type.namespaced) {
      delete metadata.namespace;
      return;
    }
    if (pathNamespace !== undefined && metadata.namespace && metadata.namespace !== pathNamespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    metadata.namespace = pathNamespace ?? metadata.namespace ?? (origin === 'test' ? 'default' : undefined);
    if (!metadata.namespace) throw badRequest('the server could not find the requested resource: namespace is required');
  }

  private resetStatusOnCreate(type: ResourceType, object: KubeObject): void {
    if (type.group === '' && type.resource === 'pods') object['status'] = { phase: 'Pending' };
    if (type.group === 'resource.k8s.io' && type.resource === 'resourceclaims') delete object['status'];
  }

  private target(type: ResourceType, name: string): { group: string; resource: string; name: string } {
    return { group: type.group, resource: type.resource, name };
  }
}
