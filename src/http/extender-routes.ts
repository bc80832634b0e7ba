/**
 * POST {prefix}/filter, /prioritize, /preempt: one map lookup picks the verb (no router, no body parser, no other
 * per-request work), a slot under the in-flight bound is taken, then: read the bounded body, JSON.parse once, decode,
 * call the service, write the encoded string.
 *
 * How a failure or a shed request is answered follows what kube-scheduler does with it (pkg/scheduler/extender.go
 * `HTTPExtender.send` treats any status but 200 as an error):
 * - filter: 200 with `Error` set. `findNodesThatPassExtenders` (schedule_one.go) fails the scheduling attempt (the pod
 *   is retried with backoff), or skips this extender when it is `ignorable`; the scheduler logs our message.
 * - prioritize: 503. `prioritizeNodes` ignores prioritize errors: the nodes get no score from us this cycle.
 * - preempt: 503 (it has no error field). `callExtenders` (framework/preemption) fails this preemption attempt, or
 *   skips this extender when it is `ignorable`.
 */
import type { Context, Next } from 'koa';
import { decodeExtenderArgs, decodePreemptionArgs } from '../protocol/decode.js';
import { encodeFilterResult, encodeHostPriorityList, encodePreemptionResult } from '../protocol/encode.js';
import { InputError } from '../protocol/errors.js';
import type { ExtenderFilterResult } from '../protocol/types.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ExtenderService } from './extender-port.js';
import type { InFlightLimit } from './in-flight-limit.js';
import { readJsonBody } from './json-body.js';
import { sendError, type ExtenderVerb, type RequestState } from './request-middleware.js';

export interface ExtenderRouteDeps {
  service: ExtenderService;
  metrics: Metrics;
  logger: Logger;
  pathPrefix: string;
  bodyLimitBytes: number;
  inFlight: InFlightLimit;
}

export const EXTENDER_VERBS: readonly ExtenderVerb[] = ['filter', 'prioritize', 'preempt'];

function sendEncoded(ctx: Context, encoded: string): void {
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = encoded;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** An otherwise empty filter result: the scheduler treats a non-empty Error as this extender failing the pod. */
export function filterErrorResult(message: string): ExtenderFilterResult {
  return { Nodes: null, NodeNames: null, FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: message };
}

export function filterFailureResult(err: unknown): ExtenderFilterResult {
  return filterErrorResult(`internal error: ${errorMessage(err)}`);
}

/** Answers at once, without reading the body (Node discards what is left of it and keeps the connection). */
function shed(ctx: Context, verb: ExtenderVerb, limit: number, metrics: Metrics): void {
  (ctx.state as RequestState).outcome = 'shed';
  metrics.httpShedRequests.inc({ verb });
  const message = `kube-ledger is overloaded: ${limit} ${verb} requests already in flight (server.maxInFlightPerVerb); retry`;
  if (verb === 'filter') return sendEncoded(ctx, encodeFilterResult(filterErrorResult(message)));
  ctx.set('Retry-After', '1');
  sendError(ctx, 503, message);
}

type VerbHandler = (ctx: Context) => Promise<void>;

/** The verbs as one middleware; any other path goes on to `next`. */
export function extenderVerbRoutes(deps: ExtenderRouteDeps): (ctx: Context, next: Next) => Promise<void> {
  const { service, metrics, logger, pathPrefix, bodyLimitBytes, inFlight } = deps;

  const readBody = async (ctx: Context, verb: ExtenderVerb): Promise<unknown> => {
    const body = await readJsonBody(ctx.req, bodyLimitBytes);
    metrics.httpRequestBodyBytes.observe({ verb }, body.bytes);
    return body.value;
  };

  const handlers: Record<ExtenderVerb, VerbHandler> = {
    filter: async (ctx) => {
      const args = decodeExtenderArgs(await readBody(ctx, 'filter'));
      let encoded: string;
      try {
        encoded = encodeFilterResult(service.filter(args));
      } catch (err) {
        if (err instanceof InputError) throw err;
        (ctx.state as RequestState).outcome = 'error';
        logger.error('filter failed', { verb: 'filter', error: errorMessage(err) });
        encoded = encodeFilterResult(filterFailureResult(err));
      }
      sendEncoded(ctx, encoded);
    },
    prioritize: async (ctx) => {
      const args = decodeExtenderArgs(await readBody(ctx, 'prioritize'));
      sendEncoded(ctx, encodeHostPriorityList(service.prioritize(args)));
    },
    preempt: async (ctx) => {
      const args = decodePreemptionArgs(await readBody(ctx, 'preempt'));
      sendEncoded(ctx, encodePreemptionResult(await service.preempt(args)));
    },
  };
  const byPath = new Map<string, ExtenderVerb>(EXTENDER_VERBS.map((verb) => [`${pathPrefix}/${verb}`, verb]));

  return async function extenderVerb(ctx: Context, next: Next): Promise<void> {
    const verb = byPath.get(ctx.path);
    if (verb === undefined) return next();
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      return sendError(ctx, 405, `method ${ctx.method} not allowed; allowed: POST`);
    }
    if (!inFlight.tryEnter(verb)) return shed(ctx, verb, inFlight.perVerb, metrics);
    try {
      await handlers[verb](ctx);
    } finally {
      inFlight.leave(verb);
    }
  };
}
