/**
 * Turns a request path and method into what the API server's RequestInfo resolver would: verb, group, version,
 * resource, namespace, name, subresource. Fault matchers and the request log both speak in these terms.
 */
import { findResourceType, type ResourceType } from './resources.js';

export type RequestVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'nonresource';

export interface RequestInfo {
  readonly method: string;
  readonly path: string;
  readonly verb: RequestVerb;
  readonly group?: string;
  readonly version?: string;
  /** Plural resource name as in the path ("pods"); undefined for non-resource paths such as /version. */
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
  /** The served type, when the path names one this fake knows. */
  readonly type?: ResourceType;
}

function isWatch(query: URLSearchParams): boolean {
  const value = query.get('watch');
  return value === '1' || value === 'true';
}

function resourceVerb(method: string, hasName: boolean, watch: boolean): RequestVerb {
  switch (method) {
    case 'GET': return watch ? 'watch' : hasName ? 'get' : 'list';
    case 'POST': return 'create';
    case 'PUT': return 'update';
    case 'PATCH': return 'patch';
    case 'DELETE': return hasName ? 'delete' : 'deletecollection';
    default: return 'nonresource';
  }
}

/** Splits "/api/v1/..." or "/apis/{group}/{version}/..." into group, version and the rest. */
function splitPrefix(segments: string[]): { group: string; version: string; rest: string[] } | undefined {
  if (segments[0] === 'api' && segments[1] !== undefined) return { group: '', version: segments[1], rest: segments.slice(2) };
  if (segments[0] === 'apis' && segments[1] !== undefined && segments[2] !== undefined) {
    return { group: segments[1], version: segments[2], rest: segments.slice(3) };
  }
  return undefined;
}

export function resolveRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const segments = path.split('/').filter((s) => s !== '').map(decodeURIComponent);
  const prefix = splitPrefix(segments);
  if (prefix === undefined || prefix.rest.length === 0) return { method, path, verb: 'nonresource' };
  let rest = prefix.rest;
  let watch = isWatch(query);
  if (rest[0] === 'watch') {
    watch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  if (resource === undefined) return { method, path, verb: 'nonresource' };
  const type = findResourceType(prefix.group, prefix.version, resource);
  return {
    method, path, verb: resourceVerb(method, name !== undefined, watch),
    group: prefix.group, version: prefix.version, resource,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
    ...(type !== undefined ? { type } : {}),
  };
}

/**
 * Selects requests. Every given field must match; `resource` accepts "pods" or "leases.coordination.k8s.io";
 * `pathPrefix` compares the raw path; `test` is an extra predicate.
 */
export interface RequestMatcher {
  method?: string;
  verb?: RequestVerb | RequestVerb[];
  resource?: string;
  namespace?: string;
  name?: string;
  /** '' matches requests without a subresource. */
  subresource?: string;
  pathPrefix?: string;
  test?: (info: RequestInfo) => boolean;
}

function resourceMatches(expected: string, info: RequestInfo): boolean {
  if (info.resource === undefined) return false;
  return expected === info.resource || expected === `${info.resource}.${info.group ?? ''}`;
}

export function matchesRequest(matcher: RequestMatcher | undefined, info: RequestInfo): boolean {
  if (matcher === undefined) return true;
  if (matcher.method !== undefined && matcher.method.toUpperCase() !== info.method) return false;
  if (matcher.verb !== undefined && !([] as RequestVerb[]).concat(matcher.verb).includes(info.verb)) return false;
  if (matcher.resource !== undefined && !resourceMatches(matcher.resource, info)) return false;
  if (matcher.namespace !== undefined && matcher.namespace !== info.namespace) return false;
  if (matcher.name !== undefined && matcher.name !== info.name) return false;
  if (matcher.subresource !== undefined && matcher.subresource !== (info.subresource ?? '')) return false;
  if (matcher.pathPrefix !== undefined && !info.path.startsWith(matcher.pathPrefix)) return false;
  return matcher.test === undefined || matcher.test(info);
}
