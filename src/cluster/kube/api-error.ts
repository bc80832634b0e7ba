/**
 * The one error type for "the API server answered, and not with 2xx", whichever client asked: our list/watch client
 * (`api-client.ts`) throws it directly, and the nominator's client-node clients (`nomination/kube-clients.ts`) map
 * client-node's `ApiException` into it at their boundary. Callers branch on the HTTP code (`isApiError(err, 409)`)
 * and read the decoded `Status` (reason, message) when the server sent one. Deadlines are a different failure
 * (nothing answered): `DeadlineExceededError` in `deadline.ts`.
 */

/** The fields of a metav1.Status body that we read. */
export interface ApiStatus {
  /** The apimachinery StatusReason, e.g. `Conflict`, `NotFound`, `Expired`. */
  reason?: string;
  message?: string;
  code?: number;
  /** `details.causes[].reason` (e.g. `ResourceVersionTooLarge`) and `.message`, when the server gave causes. */
  causes?: Array<{ reason?: string; message?: string }>;
}

export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  constructor(
    /** The HTTP status code. */
    readonly code: number,
    /** What was asked: a request path (`/api/v1/pods`) or a verb and object (`PATCH pods/status ns/name`). */
    readonly what: string,
    readonly status?: ApiStatus,
  ) {
    super(`${what}: HTTP ${code}${status?.reason ? ` ${status.reason}` : ''}${status?.message ? `: ${status.message}` : ''}`);
  }

  /** The StatusReason the server sent, if any. */
  get reason(): string | undefined {
    return this.status?.reason;
  }
}

/** True for a `KubeApiError`, and when `code` is given, only for that HTTP code (404, 409, 410, ...). */
export function isApiError(err: unknown, code?: number): err is KubeApiError {
  return err instanceof KubeApiError && (code === undefined || err.code === code);
}

/** The `Status` in a response body (parsed JSON or its text); undefined when the body is not a Status. */
export function apiStatusOf(body: unknown): ApiStatus | undefined {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null || (value as { kind?: unknown }).kind !== 'Status') return undefined;
  const { reason, message, code, details } = value as Record<string, unknown>;
  const causes = causesOf(details);
  return {
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof code === 'number' ? { code } : {}),
    ...(causes ? { causes } : {}),
  };
}

function causesOf(details: unknown): ApiStatus['causes'] {
  const causes = (details as { causes?: unknown } | null | undefined)?.causes;
  if (!Array.isArray(causes)) return undefined;
  return causes.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null).map((c) => ({
    ...(typeof c['reason'] === 'string' ? { reason: c['reason'] } : {}),
    ...(typeof c['message'] === 'string' ? { message: c['message'] } : {}),
  }));
}
