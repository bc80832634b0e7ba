/**
 * A request the HTTP layer refuses before the service sees it (body too large, wrong media type, malformed JSON...).
 * The error middleware turns it into a JSON reply `{"error": message, "path"?: ...}` with `status`, and counts it
 * under `outcome`. `shed` marks a refusal for load (the request memory budget is busy): the verbs answer it the way
 * kube-scheduler treats as "not now" (filter: 200 with `Error`; prioritize, preempt: 503 with Retry-After).
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly outcome: string,
    message: string,
    readonly options: { path?: string; closeConnection?: boolean; shed?: boolean } = {},
  ) {
    super(message);
    this.name = 'HttpProblem';
  }
}

/** The client went away before its request body was complete; there is nobody to answer. */
export class ClientAbortedError extends Error {
  constructor() {
    super('client aborted the request');
    this.name = 'ClientAbortedError';
  }
}

/** Who a failed request was about, for the one log line of an internal error: never more than names and the UID. */
export interface PodIdentity {
  namespace: string;
  name: string;
  uid: string;
}

/**
 * The service failed on a request it had accepted: a fault of ours, not of the request. Its message and stack are
 * logged once with the verb and the pod; the reply says only that it was an internal error.
 */
export class ServiceFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly pod: PodIdentity | undefined,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'ServiceFailure';
  }
}
