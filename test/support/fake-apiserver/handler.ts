/**
 * The HTTP request path of the fake: record, apply request faults, route to discovery / list / watch / get / writes,
 * and answer failures as `Status` objects.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { coreVersions, groupList, resourceList, VERSION_INFO } from './discovery.js';
import type { FaultState } from './faults.js';
import { ApiError, badRequest, conflict, injectedFailure, methodNotAllowed, notFound, successStatus, unsupportedMediaType, type KubeStatus } from './kube-status.js';
import { endlessPage, listBodyJson, listObjects, type ListBody, type ListContext } from './list.js';
import { PATCH_CONTENT_TYPES, type PatchContentType } from './patch.js';
import { resolveRequestInfo, type RequestInfo } from './request-info.js';
import type { RecordedRequest, RequestLog } from './request-log.js';
import type { ResourceVersionClock } from './resource-versions.js';
import { findResourceType, objectKey, type KubeObject, type ResourceType } from './resources.js';
import type { ObjectStore } from './store.js';
import type { WatchHub } from './watch.js';
import type { DeletePreconditions, ResourceWriter, Subresource } from './writes.js';
import { sleep } from '../eventually.js';

export interface HandlerContext {
  store: ObjectStore;
  writer: ResourceWriter;
  watches: WatchHub;
  faults: FaultState;
  log: RequestLog;
  clock: ResourceVersionClock;
  requireBearerToken: boolean;
  tooLargeWaitMs: number;
  includeItemTypeMeta: boolean;
  serverAddress: () => string;
}

type ResourceRequest = RequestInfo & { type: ResourceType; resource: string };

const MAX_BODY_BYTES = 64 * 1024 * 1024;

function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sendStatus(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status.code, error.status, error.headers);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'RequestEntityTooLarge', message: 'request entity too large', code: 413 }));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text === '' ? 'null' : text);
  } catch (error) {
    throw badRequest(`error decoding request body: ${(error as Error).message}`);
  }
}

export async function handleRequest(ctx: HandlerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake-apiserver');
  const info = resolveRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
  const entry = ctx.log.record(info, url.searchParams, req.headers);
  res.on('close', () => {
    entry.endedAt = performance.now();
    entry.status = res.statusCode;
  });
  try {
    entry.body = await readBody(req);
    if (ctx.faults.takeBlackHole(info)) {
      // Accepted and never answered, like a request lost behind a dead proxy: the connection stays open until the
      // client gives up (its deadline) or the server closes.
      entry.fault = 'blackHole';
      await new Promise<void>((resolve) => res.on('close', () => resolve()));
      return;
    }
    await applyRequestFaults(ctx, info, entry);
    await route(ctx, info, url.searchParams, entry.body, req, res);
  } catch (error) {
    if (error instanceof ApiError) sendStatus(res, error);
    else sendJson(res, 500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'InternalError', message: String(error), code: 500 } satisfies KubeStatus);
  }
}

async function applyRequestFaults(ctx: HandlerContext, info: RequestInfo, entry: RecordedRequest): Promise<void> {
  if (ctx.requireBearerToken && !entry.bearerToken) {
    entry.fault = 'unauthorized';
    throw new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  }
  const delayMs = ctx.faults.takeDelay(info);
  if (delayMs > 0) {
    entry.fault = `delay:${delayMs}`;
    await sleep(delayMs);
  }
  const failure = ctx.faults.takeFailure(info);
  if (failure !== undefined) {
    entry.fault = `failNext:${failure.status}`;
    throw injectedFailure(failure.status, failure.retryAfterSeconds, failure.message);
  }
  if (ctx.faults.takeConflict(info)) {
    entry.fault = 'conflictNext';
    throw conflict({ group: info.group ?? '', resource: info.resource ?? '', name: info.name ?? '' });
  }
}

function routeNonResource(ctx: HandlerContext, info: RequestInfo, res: ServerResponse): void {
  const path = info.path.replace(/\/+$/, '');
  if (['/healthz', '/readyz', '/livez'].includes(path)) {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
    return;
  }
  const segments = path.split('/').filter((s) => s !== '');
  let body: unknown;
  if (path === '/version') body = VERSION_INFO;
  else if (path === '/api') body = coreVersions(ctx.serverAddress());
  else if (path === '/apis') body = groupList();
  else if (segments[0] === 'api' && segments.length === 2) body = resourceList('', segments[1] ?? '');
  else if (segments[0] === 'apis' && segments.length === 3) body = resourceList(segments[1] ?? '', segments[2] ?? '');
  if (body === undefined) throw notFound({ group: '', resource: '', name: '' });
  sendJson(res, 200, body);
}

async function route(ctx: HandlerContext, info: RequestInfo, query: URLSearchParams, body: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (info.verb === 'nonresource' || info.resource === undefined) {
    routeNonResource(ctx, info, res);
    return;
  }
  if (info.group === '' && info.resource === 'bindings' && info.verb === 'create' && info.namespace !== undefined) {
    bindPod(ctx, info.namespace, parseJson(body), undefined, res);
    return;
  }
  const allNamespaces = info.verb === 'list' || info.verb === 'watch';
  const scopeFits = info.type !== undefined && (info.type.namespaced ? info.namespace !== undefined || allNamespaces : info.namespace === undefined);
  if (!scopeFits) throw notFound({ group: info.group ?? '', resource: info.resource, name: info.name ?? '' });
  await routeResource(ctx, info as ResourceRequest, query, body, req, res);
}

function subresourceOf(request: ResourceRequest): Subresource {
  if (request.subresource === undefined) return undefined;
  if (request.subresource === 'status' && request.type.hasStatus) return 'status';
  throw notFound({ group: request.group ?? '', resource: `${request.resource}/${request.subresource}`, name: request.name ?? '' });
}

async function routeResource(ctx: HandlerContext, request: ResourceRequest, query: URLSearchParams, body: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { type, namespace, name } = request;
  if (request.subresource === 'binding' && type.resource === 'pods' && type.group === '' && request.verb === 'create') {
    bindPod(ctx, namespace ?? '', parseJson(body), name, res);
    return;
  }
  const subresource = subresourceOf(request);
  switch (request.verb) {
    case 'list': {
      const listContext: ListContext = { store: ctx.store, clock: ctx.clock, expiring: ctx.faults.isExpiring(type), tooLargeWaitMs: ctx.tooLargeWaitMs, includeItemTypeMeta: ctx.includeItemTypeMeta };
      const listed: ListBody = ctx.faults.isEndless(type) ? endlessPage(listContext, type, query) : await listObjects(listContext, type, namespace, query);
      // Smuggled objects (another kind, a broken shape) ride on the first page, as if the server stored them.
      if (!query.get('continue')) listed.items = [...listed.items, ...ctx.faults.smuggledInto(type) as KubeObject[]];
      const body = listBodyJson(listed, ctx.includeItemTypeMeta);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(body);
      return;
    }
    case 'watch': {
      if (name !== undefined) query.set('fieldSelector', [query.get('fieldSelector'), `metadata.name=${name}`].filter(Boolean).join(','));
      await ctx.watches.open(type, namespace, query, res);
      return;
    }
    case 'get': {
      const found = ctx.store.get(type, objectKey(namespace, name ?? ''));
      if (found === undefined) throw notFound({ group: type.group, resource: type.resource, name: name ?? '' });
      sendJson(res, 200, found);
      return;
    }
    case 'create':
      if (name !== undefined) throw methodNotAllowed();
      sendJson(res, 201, ctx.writer.create(type, namespace, parseJson(body), 'api'));
      return;
    case 'update':
      sendJson(res, 200, ctx.writer.update(type, namespace, name ?? '', parseJson(body), subresource, 'api'));
      return;
    case 'patch':
      sendJson(res, 200, ctx.writer.patch(type, namespace, name ?? '', patchContentType(req), parseJson(body), subresource, 'api'));
      return;
    case 'delete':
      sendJson(res, 200, ctx.writer.delete(type, namespace, name ?? '', deletePreconditions(body)));
      return;
    default:
      throw methodNotAllowed();
  }
}

function patchContentType(req: IncomingMessage): PatchContentType {
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const known = PATCH_CONTENT_TYPES.find((t) => t === contentType);
  if (known === undefined) throw unsupportedMediaType(contentType);
  return known;
}

function deletePreconditions(body: string): DeletePreconditions {
  if (body.trim() === '') return {};
  const options = parseJson(body) as { preconditions?: DeletePreconditions } | null;
  return options?.preconditions ?? {};
}

function bindPod(ctx: HandlerContext, namespace: string, body: unknown, podName: string | undefined, res: ServerResponse): void {
  const binding = (body ?? {}) as { metadata?: { name?: string }; target?: { name?: string } };
  const name = podName ?? binding.metadata?.name ?? '';
  const nodeName = binding.target?.name ?? '';
  if (nodeName === '') throw badRequest('Binding.target.name is required');
  const pods = findResourceType('', 'v1', 'pods') as ResourceType;
  ctx.writer.bind(pods, namespace, name, nodeName);
  sendJson(res, 201, successStatus(201));
}
