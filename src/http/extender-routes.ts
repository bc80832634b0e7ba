/**
 * POST {prefix}/filter, /prioritize, /preempt, answered on node:http directly, ahead of Koa (which serves /debug/*
 * and answers every other path): one map lookup picks the verb, then the client-certificate gate (mTLS), 405 for
 * another method, a slot under the in-flight bound, the bounded body read and JSON.parse once (for filter and
 * prioritize, of the text before a candidate list sent again: protocol/extender-args-text.ts), decode, the service,
 * and the encoded reply written as one buffer. Request metrics, failure replies and their logs are request-middleware's
 * (`failureReply`), so a verb is answered and counted exactly as Koa's middleware answered it. Why not through Koa: its
 * per-request context and middleware chain cost about as much as the fit scan of a 500-node filter.
 *
 * How a failure or a shed request is answered follows what kube-scheduler does with it (pkg/scheduler/extender.go
 * `HTTPExtender.send` treats any status but 200 as an error):
 * - filter: 200 with `Error` set. `findNodesThatPassExtenders` (schedule_one.go) fails the scheduling attempt (the pod
 *   is retried with backoff), or skips this extender when it is `ignorable`; the scheduler logs our message.
 * - prioritize: 503. `prioritizeNodes` ignores prioritize errors: the nodes get no score from us this cycle.
 * - preempt: 503 (it has no error field). `callExtenders` (framework/preemption) fails this preemption attempt, or
 *   skips this extender when it is `ignorable`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodePreemptionArgs } from '../protocol/decode.js';
import { decodeExtenderArgsText, expectList, type ReusedList } from '../protocol/extender-args-text.js';
import { ENTRIES_PER_PIECE, encodeFilterResult, encodeFilterResultPieces, encodeHostPriorityListPieces, encodePreemptionResult } from '../protocol/encode.js';
import { FilterReply } from '../protocol/filter-reply.js';
import { InputError } from '../protocol/errors.js';
import type { ExtenderArgs, ExtenderFilterResult } from '../protocol/types.js';
import type { Logger } from '../observability/logger.js';
import { requestEnded, requestStarted, type Metrics } from '../observability/metrics.js';
import { certificateRefusal } from './client-certificate-gate.js';
import type { ExtenderService } from './extender-port.js';
import type { InFlightLimit } from './in-flight-limit.js';
import { parseJson, readJsonBody, readJsonText } from './json-body.js';
import { lingerAfterReply, type LingerBounds } from './lingering-close.js';
import { errorBody, failureReply, type ExtenderVerb } from './request-middleware.js';

export interface ExtenderRouteDeps {
  service: ExtenderService;
  metrics: Metrics;
  logger: Logger;
  pathPrefix: string;
  bodyLimitBytes: number;
  inFlight: InFlightLimit;
  /** mTLS on the extender port: every verb request needs a verified client certificate (403 otherwise). */
  requireClientCertificate: boolean;
  /** How long a refused (413) connection lingers; tests shorten it. */
  linger?: LingerBounds;
}

/** Answers the request when it is for a verb (true); false leaves it to the next handler. */
export type VerbRequestHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

export const EXTENDER_VERBS: readonly ExtenderVerb[] = ['filter', 'prioritize', 'preempt'];

/** Koa's `ctx.path` of a request-target: the origin form up to the query; an absolute form's path. */
export function requestPath(url: string): string {
  if (url.charCodeAt(0) === 0x2f /* / */) {
    const query = url.indexOf('?');
    return query < 0 ? url : url.slice(0, query);
  }
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The reply as strings, its byte length known. A long reply comes as pieces (protocol/encode.ts: no string over
 * ~128 KB); they are written in one go (Node corks the socket until the end): one writev, the strings encoded by
 * Node into one buffer it frees once written, rather than a Buffer per piece left for a collection to find.
 */
function writeJson(response: ServerResponse, status: number, body: string | readonly string[]): void {
  const pieces = typeof body === 'string' ? [body] : body;
  let length = 0;
  let chars = 0;
  for (const piece of pieces) {
    length += Buffer.byteLength(piece, 'utf8');
    chars += piece.length;
  }
  // As many UTF-8 bytes as UTF-16 units: every character is ASCII (any other takes 2-4 bytes), whose UTF-8 is its
  // Latin-1, a plain copy for Node instead of an encoding pass (replies are node names, numbers and JSON punctuation).
  const encoding = length === chars ? 'latin1' : 'utf8';
  response.writeHead(status, { 'Content-Type': JSON_CONTENT_TYPE, 'Content-Length': length });
  for (let i = 0; i < pieces.length - 1; i++) response.write(pieces[i], encoding);
  response.end(pieces[pieces.length - 1], encoding);
}

/**
 * kube-scheduler's next call for this pod is prioritize with the nodes this filter passed, in this order: its body
 * ends with them, and is decoded without parsing them again, its pod the filter's `args.Pod` when its text is the
 * same (extender-args-text.ts). Other results (shadow mode, an error, full Node objects) expect nothing.
 */
function expectPrioritizeAfter(args: ExtenderArgs, result: ExtenderFilterResult): void {
  if (result instanceof FilterReply && result.namesMode && result.passedCount <= ENTRIES_PER_PIECE) {
    expectList('prioritize', result.passedCount, result.passedJoined, () => result.NodeNames ?? [], args);
  } else expectList('prioritize', 0, '', () => []);
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

/** A verb's work on an admitted request: writes the reply, resolves with the outcome it is counted under. */
type VerbHandler = (request: IncomingMessage, response: ServerResponse) => Promise<string>;

export function extenderVerbHandler(deps: ExtenderRouteDeps): VerbRequestHandler {
  const { service, metrics, logger, pathPrefix, bodyLimitBytes, inFlight, requireClientCertificate, linger } = deps;

  const readBody = async (request: IncomingMessage, verb: ExtenderVerb): Promise<unknown> => {
    const body = await readJsonBody(request, bodyLimitBytes);
    metrics.httpRequestBodyBytes.observe(verb, '', body.bytes);
    return body.value;
  };

  const countReuse = (list: ReusedList): void => metrics.candidateListReuseCounts.add(list, '');

  /** ExtenderArgs of a filter or prioritize call; a candidate list sent again is not parsed again (extender-args-text.ts). */
  const readArgs = async (request: IncomingMessage, verb: ExtenderVerb): Promise<ExtenderArgs> => {
    const body = await readJsonText(request, bodyLimitBytes);
    metrics.httpRequestBodyBytes.observe(verb, '', body.bytes);
    return decodeExtenderArgsText(body.text, parseJson, verb, countReuse);
  };

  const handlers: Record<ExtenderVerb, VerbHandler> = {
    filter: async (request, response) => {
      const args = await readArgs(request, 'filter');
      let encoded: string | string[];
      let outcome = 'ok';
      try {
        const result = service.filter(args);
        // An answer with Error set (degraded: caches too stale to judge) is a refusal, not an ok.
        if (result.Error) outcome = 'degraded';
        encoded = encodeFilterResultPieces(result);
        expectPrioritizeAfter(args, result);
      } catch (err) {
        if (err instanceof InputError) throw err;
        outcome = 'error';
        logger.error('filter failed', { verb: 'filter', error: errorMessage(err) });
        encoded = encodeFilterResult(filterFailureResult(err));
      }
      writeJson(response, 200, encoded);
      return outcome;
    },
    prioritize: async (request, response) => {
      const args = await readArgs(request, 'prioritize');
      writeJson(response, 200, encodeHostPriorityListPieces(service.prioritize(args)));
      return 'ok';
    },
    preempt: async (request, response) => {
      const args = decodePreemptionArgs(await readBody(request, 'preempt'));
      writeJson(response, 200, encodePreemptionResult(await service.preempt(args)));
      return 'ok';
    },
  };

  /** Answered at once, without reading the body (Node discards what is left of it and keeps the connection). */
  const shed = (response: ServerResponse, verb: ExtenderVerb): string => {
    metrics.httpShedRequests.inc({ verb });
    const message = `kube-ledger is overloaded: ${inFlight.perVerb} ${verb} requests already in flight (server.maxInFlightPerVerb); retry`;
    if (verb === 'filter') writeJson(response, 200, encodeFilterResult(filterErrorResult(message)));
    else {
      response.setHeader('Retry-After', '1');
      writeJson(response, 503, errorBody(message));
    }
    return 'shed';
  };

  const answer = async (verb: ExtenderVerb, request: IncomingMessage, response: ServerResponse): Promise<string> => {
    const refusal = requireClientCertificate ? certificateRefusal(request) : undefined;
    if (refusal !== undefined) {
      writeJson(response, 403, errorBody(refusal));
      return 'forbidden';
    }
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST');
      writeJson(response, 405, errorBody(`method ${request.method} not allowed; allowed: POST`));
      return 'method_not_allowed';
    }
    if (!inFlight.tryEnter(verb)) return shed(response, verb);
    try {
      return await handlers[verb](request, response);
    } finally {
      inFlight.leave(verb);
    }
  };

  const serve = async (verb: ExtenderVerb, request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const started = requestStarted(metrics, verb);
    let outcome = 'error';
    try {
      outcome = await answer(verb, request, response);
    } catch (err) {
      const reply = failureReply(err, verb, logger);
      outcome = reply.outcome;
      if (response.headersSent) response.end();
      else {
        if (reply.closeConnection) {
          response.setHeader('Connection', 'close');
          lingerAfterReply(request, linger);
        }
        if (reply.body === undefined) {
          // Nobody is left to read it (the client went away).
          response.statusCode = reply.status;
          response.end();
        } else writeJson(response, reply.status, reply.body);
      }
    } finally {
      requestEnded(metrics, verb, outcome, started);
    }
  };

  const byPath = new Map<string, ExtenderVerb>(EXTENDER_VERBS.map((verb) => [`${pathPrefix}/${verb}`, verb]));

  return (request, response) => {
    const verb = byPath.get(requestPath(request.url ?? '/'));
    if (verb === undefined) return false;
    serve(verb, request, response).catch((err: unknown) => {
      logger.error('request failed', { verb, error: errorMessage(err) });
      response.destroy();
    });
    return true;
  };
}
