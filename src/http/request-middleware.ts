/**
 * The outermost middleware: counts and times every request by (verb, outcome), tracks in-flight requests, and turns
 * every refusal or failure into a JSON reply `{"error": ..., "path"?: ...}` plus one structured log line (never a
 * body). Handlers report their outcome through `ctx.state.outcome`; otherwise it is derived from the status.
 */
import type { Context, Next } from 'koa';
import { InputError } from '../protocol/errors.js';
import type { Logger } from '../observability/logger.js';
import { requestEnded, requestStarted, type Metrics } from '../observability/metrics.js';
import { boundedText } from '../observability/bounded-text.js';
import { ClientAbortedError, HttpProblem, ServiceFailure } from './http-problem.js';
import { lingerAfterReply, type LingerBounds } from './lingering-close.js';

export type ExtenderVerb = 'filter' | 'prioritize' | 'preempt';
export type VerbLabel = ExtenderVerb | 'other';

export interface RequestState {
  outcome?: string;
}

export function sendJson(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body);
}

export function sendError(ctx: Context, status: number, message: string, path?: string): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = errorBody(message, path);
}

const OUTCOME_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'bad_request',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'too_large',
  403: 'forbidden',
  415: 'unsupported_media_type',
  501: 'not_implemented',
  503: 'unavailable',
};

/** The outcome label a reply's status stands for, when the handler reported none. */
export function outcomeOfStatus(status: number): string {
  if (status < 400) return 'ok';
  return OUTCOME_BY_STATUS[status] ?? (status >= 500 ? 'error' : 'client_error');
}

function outcomeOf(ctx: Context): string {
  return (ctx.state as RequestState).outcome ?? outcomeOfStatus(ctx.status);
}

/** Router misses leave 404/405/501 without a body; give them the same JSON shape as every other error. */
function fillEmptyErrorReply(ctx: Context): void {
  if (ctx.body !== undefined && ctx.body !== null) return;
  if (ctx.status === 404) sendError(ctx, 404, `no route for ${boundedText(ctx.method)} ${boundedText(ctx.path)}`);
  else if (ctx.status === 405) sendError(ctx, 405, `method ${boundedText(ctx.method)} not allowed; allowed: ${ctx.response.get('Allow')}`);
  else if (ctx.status === 501) sendError(ctx, 501, `method ${boundedText(ctx.method)} not implemented`);
}

/**
 * How a failed request is answered and logged, whichever server code served it (this middleware, or the verbs on
 * node:http, extender-routes.ts): `body` undefined means nobody is left to read a reply. Client text a message echoes
 * (a JSON key in a path, a pod name) is cut short in the reply and the log; an internal failure's message and stack go
 * to the log once, never into the reply.
 */
export interface FailureReply {
  status: number;
  outcome: string;
  body: string | undefined;
  /** The reply's `error` text. */
  message: string;
  closeConnection: boolean;
  /** A refusal for load: the verbs answer it as they answer shedding. */
  shed: boolean;
}

export const INTERNAL_ERROR_MESSAGE = 'internal error';

export function failureReply(err: unknown, verb: VerbLabel, logger: Logger): FailureReply {
  if (err instanceof HttpProblem) {
    const message = boundedText(err.message);
    logger.warn('request refused', { verb, status: err.status, outcome: err.outcome, error: message });
    const body = errorBody(message, err.options.path === undefined ? undefined : boundedText(err.options.path));
    return { status: err.status, outcome: err.outcome, body, message, closeConnection: err.options.closeConnection === true, shed: err.options.shed === true };
  }
  if (err instanceof InputError) {
    const path = boundedText(err.path);
    const message = `${path}: ${boundedText(err.problem)}`;
    logger.warn('request refused', { verb, status: 400, outcome: 'bad_request', error: message });
    return { status: 400, outcome: 'bad_request', body: errorBody(message, path), message, closeConnection: false, shed: false };
  }
  if (err instanceof ClientAbortedError) {
    logger.info('client aborted request', { verb });
    return { status: 400, outcome: 'aborted', body: undefined, message: 'client aborted the request', closeConnection: false, shed: false };
  }
  logInternalError(err, verb, logger);
  return { status: 500, outcome: 'error', body: errorBody(INTERNAL_ERROR_MESSAGE), message: INTERNAL_ERROR_MESSAGE, closeConnection: false, shed: false };
}

function logInternalError(err: unknown, verb: VerbLabel, logger: Logger): void {
  const cause = err instanceof ServiceFailure ? err.cause : err;
  const pod = err instanceof ServiceFailure && err.pod ? { pod: `${err.pod.namespace}/${err.pod.name}`, uid: err.pod.uid } : {};
  logger.error('request failed: internal error', {
    verb,
    ...pod,
    error: cause instanceof Error ? cause.message : String(cause),
    ...(cause instanceof Error && cause.stack ? { stack: cause.stack } : {}),
  });
}

/** `{"error": message, "path"?: path}`. */
export function errorBody(message: string, path?: string): string {
  return JSON.stringify(path === undefined ? { error: message } : { error: message, path });
}

function replyToFailure(ctx: Context, err: unknown, verb: VerbLabel, logger: Logger, linger?: LingerBounds): void {
  const reply = failureReply(err, verb, logger);
  (ctx.state as RequestState).outcome = reply.outcome;
  if (reply.closeConnection) {
    ctx.set('Connection', 'close');
    lingerAfterReply(ctx.req, linger);
  }
  ctx.status = reply.status; // without a body (client gone) the status only keeps Koa from writing a default body
  if (reply.body !== undefined) {
    ctx.type = 'application/json';
    ctx.body = reply.body;
  }
}

export function requestMiddleware(deps: { metrics: Metrics; logger: Logger; verbOf: (path: string) => VerbLabel; linger?: LingerBounds }) {
  const { metrics, logger, verbOf, linger } = deps;
  return async function handleRequest(ctx: Context, next: Next): Promise<void> {
    const verb = verbOf(ctx.path);
    const started = requestStarted(metrics, verb);
    try {
      await next();
      fillEmptyErrorReply(ctx);
    } catch (err) {
      replyToFailure(ctx, err, verb, logger, linger);
    } finally {
      const outcome = outcomeOf(ctx);
      requestEnded(metrics, verb, outcome, started);
    }
  };
}
