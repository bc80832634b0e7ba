/**
 * A request the extender cannot act on because of its content. `path` is a JSON path into the request body
 * (`$.Pod.spec.containers[0].resources.requests.cpu`) so the operator can find the field. HTTP maps it to 400.
 */
export class InputError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'InputError';
  }
}
