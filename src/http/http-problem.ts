/**
 * A request the HTTP layer refuses before the service sees it (body too large, wrong media type, malformed JSON...).
 * The error middleware turns it into a JSON reply `{"error": message, "path"?: ...}` with `status`, and counts it
 * under `outcome`.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly outcome: string,
    message: string,
    readonly options: { path?: string; closeConnection?: boolean } = {},
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
