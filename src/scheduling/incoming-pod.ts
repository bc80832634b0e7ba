/**
 * The pod a request is about, read from the wire. Its effective requests are computed here once per request;
 * malformed quantities are the caller's fault and become InputErrors naming the JSON path.
 */
import type { PodObject } from '../ledger/objects.js';
import { effectivePodRequests } from '../ledger/pod-requests.js';
import { QuantityError } from '../ledger/quantity.js';
import { podEntryWithRequests, type PodEntry } from '../ledger/pod-entry.js';
import { InputError } from '../protocol/errors.js';
import type { WireObject } from '../protocol/types.js';

/** The request's pod as an entry; the cycle cache keeps the last (a prioritize handed its filter's Pod object reuses it). */
export function incomingPodFromWire(wire: WireObject | null, path = '$.Pod'): PodEntry {
  if (wire === null) throw new InputError(path, 'pod is required');
  const pod = wire as unknown as PodObject;
  const meta = pod.metadata;
  if (typeof meta !== 'object' || meta === null) throw new InputError(`${path}.metadata`, 'expected object');
  checkOptionalString(meta.name, `${path}.metadata.name`);
  checkOptionalString(meta.namespace, `${path}.metadata.namespace`);
  checkOptionalString(meta.uid, `${path}.metadata.uid`);
  const priority = pod.spec?.priority;
  if (priority !== undefined && priority !== null && !Number.isInteger(priority)) {
    throw new InputError(`${path}.spec.priority`, 'expected an integer');
  }
  let requests;
  try {
    requests = effectivePodRequests(pod);
  } catch (err) {
    if (err instanceof QuantityError) throw new InputError(`${path}.${err.path ?? 'spec'}`, err.message);
    if (err instanceof TypeError) throw new InputError(`${path}.spec`, `malformed pod spec: ${err.message}`);
    throw err;
  }
  return podEntryWithRequests(pod, requests);
}

function checkOptionalString(value: unknown, path: string): void {
  if (value !== undefined && value !== null && typeof value !== 'string') throw new InputError(path, 'expected string');
}
