/**
 * The outermost middleware: counts and times every request by (verb, outcome), tracks in-flight requests, and turns
 * every refusal or failure into a JSON reply `{"error": ..., "path"?: ...}` plus one structured log line (never a
 * body). Handlers report their outcome through `ctx.state.outcome`; otherwise it is derived from the status.
 */
import type { Context, Next } from 'koa';
import { InputError } from '../protocol/errors.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { ClientAbortedError, HttpProblem } from './http-problem.js';
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
  sendJson(ctx, status, path === undefined ? { error: message } : { error: message, path });
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

function outcomeOf(ctx: Context): string {
  const reported = (ctx.state as RequestState).outcome;
  if (reported !== undefined) return reported;
  if (ctx.status < 400) return 'ok';
  return OUTCOME_BY_STATUS[ctx.status] ?? (ctx.status >= 500 ? 'error' : 'client_error');
}

/** Router misses leave 404/405/501 without a body; give them the same JSON shape as every other error. */
function fillEmptyErrorReply(ctx: Context): void {
  if (ctx.body !== undefined && ctx.body !== null) return;
  if (ctx.status === 404) sendError(ctx, 404, `no route for ${ctx.method} ${ctx.path}`);
  else if (ctx.status === 405) sendError(ctx, 405, `method ${ctx.method} not allowed; allowed: ${ctx.response.get('Allow')}`);
  else if (ctx.status === 501) sendError(ctx, 501, `method ${ctx.method} not implemented`);
}

function replyToFailure(ctx: Context, err: unknown, verb: VerbLabel, logger: Logger, linger?: LingerBounds): void {
  const state = ctx.state as RequestState;
  if (err instanceof HttpProblem) {
    state.outcome = err.outcome;
    if (err.options.closeConnection) {
      ctx.set('Connection', 'close');
      lingerAfterReply(ctx.req, linger);
    }
    sendError(ctx, err.status, err.message, err.options.path);
    logger.warn('request refused', { verb, status: err.status, outcome: err.outcome, error: err.message });
  } else if (err instanceof InputError) {
    state.outcome = 'bad_request';
    sendError(ctx, 400, err.message, err.path);
    logger.warn('request refused', { verb, status: 400, outcome: 'bad_request', error: err.message });
  } else if (err instanceof ClientAbortedError) {
    state.outcome = 'aborted';
    ctx.status = 400; // nobody is left to read it; the status only keeps Koa from writing a default body
    logger.info('client aborted request', { verb });
  } else {
    state.outcome = 'error';
    sendError(ctx, 500, 'internal error');
    logger.error('request failed', { verb, status: 500, error: err instanceof Error ? err.message : String(err) });
  }
}

export function requestMiddleware(deps: { metrics: Metrics; logger: Logger; verbOf: (path: string) => VerbLabel; linger?: LingerBounds }) {
  const { metrics, logger, verbOf, linger } = deps;
  return async function handleRequest(ctx: Context, next: Next): Promise<void> {
    const verb = verbOf(ctx.path);
    const stopTimer = metrics.httpRequestDuration.startTimer();
    metrics.httpInFlight.inc({ verb });
    try {
      await next();
      fillEmptyErrorReply(ctx);
    } catch (err) {
      replyToFailure(ctx, err, verb, logger, linger);
    } finally {
      const outcome = outcomeOf(ctx);
      metrics.httpInFlight.dec({ verb });
      metrics.httpRequests.inc({ verb, outcome });
      stopTimer({ verb, outcome });
    }
  };
}
