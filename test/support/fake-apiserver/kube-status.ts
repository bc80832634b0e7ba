/**
 * `Status` objects as kube-apiserver sends them for failures, and an error type that carries one through the fake.
 */

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number; causes?: Array<{ reason?: string; message?: string; field?: string }> };
  code: number;
}

export class ApiError extends Error {
  readonly status: KubeStatus;
  readonly headers: Record<string, string>;

  constructor(status: KubeStatus, headers: Record<string, string> = {}) {
    super(status.message ?? status.reason ?? `HTTP ${status.code}`);
    this.status = status;
    this.headers = headers;
  }
}

export interface StatusTarget {
  group: string;
  resource: string;
  name?: string;
}

function failure(code: number, reason: string, message: string, target?: StatusTarget): KubeStatus {
  const status: KubeStatus = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (target !== undefined) {
    status.details = { kind: target.resource, ...(target.group ? { group: target.group } : {}), ...(target.name ? { name: target.name } : {}) };
  }
  return status;
}

function qualified(target: StatusTarget): string {
  return target.group ? `${target.resource}.${target.group}` : target.resource;
}

export function notFound(target: StatusTarget): ApiError {
  return new ApiError(failure(404, 'NotFound', `${qualified(target)} "${target.name ?? ''}" not found`, target));
}

export function alreadyExists(target: StatusTarget): ApiError {
  return new ApiError(failure(409, 'AlreadyExists', `${qualified(target)} "${target.name ?? ''}" already exists`, target));
}

export function conflict(target: StatusTarget, why = 'the object has been modified; please apply your changes to the latest version and try again'): ApiError {
  return new ApiError(failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(target)} "${target.name ?? ''}": ${why}`, target));
}

export function badRequest(message: string): ApiError {
  return new ApiError(failure(400, 'BadRequest', message));
}

export function invalid(target: StatusTarget, message: string): ApiError {
  return new ApiError(failure(422, 'Invalid', message, target));
}

export function methodNotAllowed(message = 'the server does not allow this method on the requested resource'): ApiError {
  return new ApiError(failure(405, 'MethodNotAllowed', message));
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got "${contentType}")`));
}

/** 410 Gone as the watch cache and etcd storage say it. `continueToken` is the inconsistent-continue token for lists. */
export function expired(message: string, continueToken?: string): ApiError {
  const status = failure(410, 'Expired', message);
  if (continueToken !== undefined) status.metadata = { continue: continueToken };
  return new ApiError(status);
}

export function tooLargeResourceVersion(requested: bigint, current: bigint): ApiError {
  const status = failure(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`);
  status.details = { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 };
  return new ApiError(status, { 'Retry-After': '1' });
}

/** An injected server-side failure (500 InternalError, 503 ServiceUnavailable, 429 TooManyRequests, ...). */
export function injectedFailure(code: number, retryAfterSeconds: number, message?: string): ApiError {
  const reasons: Record<number, string> = { 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout' };
  const reason = reasons[code] ?? 'InternalError';
  const headers: Record<string, string> = code === 429 || code === 503 ? { 'Retry-After': String(retryAfterSeconds) } : {};
  return new ApiError(failure(code, reason, message ?? `injected fault: ${reason}`), headers);
}

export function successStatus(code: number): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code };
}
