/**
 * POST {prefix}/filter, /prioritize, /preempt: read the bounded body, JSON.parse once, decode, call the service,
 * write the encoded string. How an internal failure is answered follows what kube-scheduler does with it: a filter
 * reply with `Error` set is logged by the scheduler (a non-200 only says "bad status"), prioritize errors are ignored
 * by the scheduler anyway, and preempt has no error field, so both of those get a 500.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { decodeExtenderArgs, decodePreemptionArgs } from '../protocol/decode.js';
import { encodeFilterResult, encodeHostPriorityList, encodePreemptionResult } from '../protocol/encode.js';
import { InputError } from '../protocol/errors.js';
import type { ExtenderFilterResult } from '../protocol/types.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { ExtenderService } from './extender-service.js';
import { readJsonBody } from './json-body.js';
import type { ExtenderVerb, RequestState } from './request-middleware.js';

export interface ExtenderRouteDeps {
  service: ExtenderService;
  metrics: Metrics;
  logger: Logger;
  pathPrefix: string;
  bodyLimitBytes: number;
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
export function filterFailureResult(err: unknown): ExtenderFilterResult {
  return {
    Nodes: null,
    NodeNames: null,
    FailedNodes: {},
    FailedAndUnresolvableNodes: {},
    Error: `internal error: ${errorMessage(err)}`,
  };
}

export function registerExtenderRoutes(router: Router, deps: ExtenderRouteDeps): void {
  const { service, metrics, logger, pathPrefix, bodyLimitBytes } = deps;

  const readBody = async (ctx: Context, verb: ExtenderVerb): Promise<unknown> => {
    const body = await readJsonBody(ctx.req, bodyLimitBytes);
    metrics.httpRequestBodyBytes.observe({ verb }, body.bytes);
    return body.value;
  };

  router.post(`${pathPrefix}/filter`, async (ctx) => {
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
  });

  router.post(`${pathPrefix}/prioritize`, async (ctx) => {
    const args = decodeExtenderArgs(await readBody(ctx, 'prioritize'));
    sendEncoded(ctx, encodeHostPriorityList(service.prioritize(args)));
  });

  router.post(`${pathPrefix}/preempt`, async (ctx) => {
    const args = decodePreemptionArgs(await readBody(ctx, 'preempt'));
    sendEncoded(ctx, encodePreemptionResult(await service.preempt(args)));
  });
}
