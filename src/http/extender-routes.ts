/**
 * POST {prefix}/filter, /prioritize, /preempt, answered on node:http directly, ahead of Koa (which serves /debug/*
 * and answers every other path): one map lookup on the canonical path (request-target.ts) picks the verb, then the
 * client-certificate gate (mTLS), 405 for another method, the header checks (415, 413), `100 Continue` when asked
 * for, the body read under the reader bound, its deadline and the memory budget (json-body.ts), and only then a slot
 * under the in-flight bound; JSON.parse once (for filter and prioritize, of the text before a candidate list sent
 * again: protocol/extender-args-text.ts), decode, the service, and the encoded reply written as one buffer. Request metrics, failure replies and their logs are request-middleware's
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
import { ExtenderArgsReader, type ReusedList } from '../protocol/extender-args-text.js';
import { encodeFilterResult, encodeFilterResultPieces, encodeHostPriorityListPieces, encodePreemptionResult } from '../protocol/encode.js';
import { InputError } from '../protocol/errors.js';
import type { ExtenderFilterResult, ExtenderPreemptionResult, WireObject } from '../protocol/types.js';
import type { Logger } from '../observability/logger.js';
import { requestEnded, requestStarted, type Metrics } from '../observability/metrics.js';
import type { CallerIdentityOf } from './caller-identity.js';
import { certificateRefusal } from './client-certificate-gate.js';
import type { ExtenderService } from './extender-port.js';
import { HttpProblem, ServiceFailure, type PodIdentity } from './http-problem.js';
import type { InFlightLimit, InFlightRefusal } from './in-flight-limit.js';
import { parseJson, type BodyDone, type JsonBodyReader } from './json-body.js';
import { lingerAfterReply, type LingerBounds } from './lingering-close.js';
import { MemoryCharge, type RequestMemoryBudget } from './request-memory-budget.js';
import { errorBody, failureReply, INTERNAL_ERROR_MESSAGE, type ExtenderVerb } from './request-middleware.js';
import { canonicalPath } from './request-target.js';

export interface ExtenderRouteDeps {
  service: ExtenderService;
  metrics: Metrics;
  logger: Logger;
  pathPrefix: string;
  /** The verbs' body reader (reader bound, deadline, limit). */
  body: JsonBodyReader;
  budget: RequestMemoryBudget;
  inFlight: InFlightLimit;
  callerOf: CallerIdentityOf;
  /** mTLS on the extender port: every verb request needs a verified client certificate (403 otherwise). */
  requireClientCertificate: boolean;
  /** How long a refused (413, 408) connection lingers; tests shorten it. */
  linger?: LingerBounds;
}

/** Answers the request when it is for a verb (true); false leaves it to the next handler. */
export type VerbRequestHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

export const EXTENDER_VERBS: readonly ExtenderVerb[] = ['filter', 'prioritize', 'preempt'];

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

/** An otherwise empty filter result: the scheduler treats a non-empty Error as this extender failing the pod. */
export function filterErrorResult(message: string): ExtenderFilterResult {
  return { Nodes: null, NodeNames: null, FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: message };
}

/** Names and UID of the request's pod, as strings only (for the log line of an internal failure). */
function podIdentity(pod: WireObject | null | undefined): PodIdentity | undefined {
  const meta = pod?.['metadata'];
  if (typeof meta !== 'object' || meta === null) return undefined;
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const m = meta as Record<string, unknown>;
  return { namespace: text(m['namespace']), name: text(m['name']), uid: text(m['uid']) };
}

/** An InputError (the request's fault) or an HttpProblem (a refusal the service chose) is answered as it is. */
function isAnswerable(err: unknown): boolean {
  return err instanceof InputError || err instanceof HttpProblem;
}

/** What the service threw: as it is when answerable, else a ServiceFailure naming the pod. */
function serviceError(err: unknown, pod: WireObject | null | undefined): unknown {
  return isAnswerable(err) ? err : new ServiceFailure(err, podIdentity(pod));
}

function expectsContinue(request: IncomingMessage): boolean {
  const expect = request.headers.expect;
  return expect !== undefined && expect.toLowerCase() === '100-continue';
}

export function extenderVerbHandler(deps: ExtenderRouteDeps): VerbRequestHandler {
  const routes = new ExtenderVerbRoutes(deps);
  const byPath = new Map<string, ExtenderVerb>(EXTENDER_VERBS.map((verb) => [`${deps.pathPrefix}/${verb}`, verb]));
  return (request, response) => {
    const path = canonicalPath(request.url);
    const verb = path === undefined ? undefined : byPath.get(path);
    if (verb === undefined) return false;
    try {
      new VerbCall(routes, verb, request, response).start();
    } catch (err) {
      routes.lastResort(verb, err, response);
    }
    return true;
  };
}

/** The verbs' work and replies, one per server: what every request of a verb shares. */
class ExtenderVerbRoutes {
  /** The candidate-list reader used when the service has none of its own (its cycle cache's). */
  private readonly ownReader = new ExtenderArgsReader();
  private readonly countReuse = (list: ReusedList): void => this.deps.metrics.candidateListReuseCounts.add(list, '');

  constructor(readonly deps: ExtenderRouteDeps) {}

  private reader(): ExtenderArgsReader {
    return this.deps.service.argsReader ?? this.ownReader;
  }

  /** Filter's or prioritize's work on a read body: writes the reply, returns the outcome it is counted under. */
  scoreOrFilter(verb: 'filter' | 'prioritize', text: string, response: ServerResponse): string {
    return verb === 'filter' ? this.filter(text, response) : this.prioritize(text, response);
  }

  private filter(text: string, response: ServerResponse): string {
    const args = this.reader().decode(text, parseJson, 'filter', this.countReuse);
    let result: ExtenderFilterResult;
    let encoded: readonly string[];
    try {
      result = this.deps.service.filter(args);
      encoded = encodeFilterResultPieces(result);
    } catch (err) {
      throw serviceError(err, args.Pod);
    }
    this.reader().expectAfterFilter(args, result);
    writeJson(response, 200, encoded);
    // An answer with Error set (degraded: caches too stale to judge) is a refusal, not an ok.
    return result.Error ? 'degraded' : 'ok';
  }

  private prioritize(text: string, response: ServerResponse): string {
    const args = this.reader().decode(text, parseJson, 'prioritize', this.countReuse);
    let encoded: readonly string[];
    try {
      encoded = encodeHostPriorityListPieces(this.deps.service.prioritize(args));
    } catch (err) {
      throw serviceError(err, args.Pod);
    }
    writeJson(response, 200, encoded);
    return 'ok';
  }

  async preempt(text: string, response: ServerResponse, caller: string): Promise<string> {
    const args = decodePreemptionArgs(parseJson(text));
    let result: ExtenderPreemptionResult;
    try {
      result = await this.deps.service.preempt(args, caller);
    } catch (err) {
      throw serviceError(err, args.Pod);
    }
    writeJson(response, 200, encodePreemptionResult(result));
    return 'ok';
  }

  /** A refusal for load, counted and answered the way kube-scheduler treats as "not now" for each verb. */
  writeShed(response: ServerResponse, verb: ExtenderVerb, message: string): void {
    this.deps.metrics.httpShedRequests.inc({ verb });
    if (verb === 'filter') writeJson(response, 200, encodeFilterResult(filterErrorResult(message)));
    else {
      response.setHeader('Retry-After', '1');
      writeJson(response, 503, errorBody(message));
    }
  }

  shedMessage(verb: ExtenderVerb, refusal: InFlightRefusal): string {
    const { inFlight } = this.deps;
    return refusal === 'verb_full'
      ? `kube-ledger is overloaded: ${inFlight.perVerb} ${verb} requests already in flight (server.maxInFlightPerVerb); retry`
      : `kube-ledger is overloaded: this caller already has ${inFlight.perCaller} ${verb} requests in flight (a quarter of server.maxInFlightPerVerb); retry`;
  }

  /** The checks before the body (mTLS, method, headers): the outcome when they answered the request, else undefined. */
  refusedBeforeBody(request: IncomingMessage, response: ServerResponse, charge: MemoryCharge): string | undefined {
    const refusal = this.deps.requireClientCertificate ? certificateRefusal(request) : undefined;
    if (refusal !== undefined) {
      writeJson(response, 403, errorBody(refusal));
      return 'forbidden';
    }
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST');
      writeJson(response, 405, errorBody(`method ${String(request.method).slice(0, 32)} not allowed; allowed: POST`));
      return 'method_not_allowed';
    }
    this.deps.body.checkHeaders(request, charge);
    if (expectsContinue(request)) response.writeContinue();
    return undefined;
  }

  /** Answers a failed request (unless its reply has begun); the outcome it is counted under. */
  replyToFailure(verb: ExtenderVerb, err: unknown, request: IncomingMessage, response: ServerResponse): string {
    const reply = failureReply(err, verb, this.deps.logger);
    if (response.headersSent) {
      response.end();
      return reply.outcome;
    }
    if (reply.closeConnection) {
      response.setHeader('Connection', 'close');
      lingerAfterReply(request, this.deps.linger);
    }
    if (reply.body === undefined) {
      // Nobody is left to read it (the client went away).
      response.statusCode = reply.status;
      response.end();
    } else if (reply.shed) {
      this.writeShed(response, verb, reply.message);
    } else if (verb === 'filter' && reply.status === 500) {
      writeJson(response, 200, encodeFilterResult(filterErrorResult(INTERNAL_ERROR_MESSAGE)));
    } else writeJson(response, reply.status, reply.body);
    return reply.outcome;
  }

  /** A failure while answering a failure: logged, and the connection dropped. */
  lastResort(verb: ExtenderVerb, err: unknown, response: ServerResponse): void {
    this.deps.logger.error('request failed: internal error', { verb, error: err instanceof Error ? err.message : String(err), ...(err instanceof Error && err.stack ? { stack: err.stack } : {}) });
    response.destroy();
  }
}

/**
 * One verb request, from its headers to its counted reply. Plain callbacks rather than async functions: filter and
 * prioritize run in the turn their body ends in, and only preempt waits on its service.
 */
class VerbCall {
  private readonly started: number;
  private readonly charge: MemoryCharge;
  /** The caller whose in-flight slot this request holds, while it holds one. */
  private slotOf: string | undefined;

  constructor(
    private readonly routes: ExtenderVerbRoutes,
    private readonly verb: ExtenderVerb,
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse,
  ) {
    this.started = requestStarted(routes.deps.metrics, verb);
    this.charge = new MemoryCharge(routes.deps.budget);
  }

  start(): void {
    try {
      const refused = this.routes.refusedBeforeBody(this.request, this.response, this.charge);
      if (refused !== undefined) return this.finish(refused);
    } catch (err) {
      return this.failed(err);
    }
    this.routes.deps.body.read(this.request, this.charge, this.bodyRead);
  }

  private readonly bodyRead: BodyDone = (problem, read) => {
    try {
      if (problem !== undefined || read === undefined) this.failed(problem);
      else this.answer(read.text, read.bytes);
    } catch (err) {
      this.routes.lastResort(this.verb, err, this.response);
    }
  };

  private answer(text: string, bytes: number): void {
    const { routes, verb, response } = this;
    const { metrics, callerOf, inFlight } = routes.deps;
    metrics.httpRequestBodyBytes.observe(verb, '', bytes);
    const caller = callerOf(this.request);
    const full = inFlight.tryEnter(verb, caller);
    if (full !== undefined) {
      routes.writeShed(response, verb, routes.shedMessage(verb, full));
      return this.finish('shed');
    }
    this.slotOf = caller;
    if (verb === 'preempt') {
      routes.preempt(text, response, caller).then((outcome) => this.finish(outcome), (err: unknown) => this.failed(err));
      return;
    }
    let outcome: string;
    try {
      outcome = routes.scoreOrFilter(verb, text, response);
    } catch (err) {
      return this.failed(err);
    }
    this.finish(outcome);
  }

  private failed(err: unknown): void {
    this.finish(this.routes.replyToFailure(this.verb, err, this.request, this.response));
  }

  private finish(outcome: string): void {
    const { metrics, inFlight } = this.routes.deps;
    if (this.slotOf !== undefined) inFlight.leave(this.verb, this.slotOf);
    this.slotOf = undefined;
    this.charge.releaseAll();
    requestEnded(metrics, this.verb, outcome, this.started);
  }
}
