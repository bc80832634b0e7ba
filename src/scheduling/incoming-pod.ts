/**
 * The pod a request is about, read from the wire. Its effective requests are computed here once per request;
 * malformed quantities are the caller's fault and become InputErrors naming the JSON path.
 */
import type { PodObject } from '../ledger/objects.js';
import { effectivePodRequests, type QuantityMemo } from '../ledger/pod-requests.js';
import { QuantityError } from '../ledger/quantity.js';
import { podEntryWithRequests, type PodEntry } from '../ledger/pod-entry.js';
import { InputError } from '../protocol/errors.js';
import type { WireObject } from '../protocol/types.js';
import { checkWirePodShape } from './wire-pod-shape.js';

/**
 * The request's pod as an entry; the cycle cache keeps the last (a prioritize handed its filter's Pod object reuses it).
 * `quantities`: the ledger's memo of quantity texts.
 */
export function incomingPodFromWire(wire: WireObject | null, path = '$.Pod', quantities?: QuantityMemo): PodEntry {
  if (wire === null) throw new InputError(path, 'pod is required');
  const pod = wire as unknown as PodObject;
  if (typeof pod.metadata !== 'object' || pod.metadata === null) throw new InputError(`${path}.metadata`, 'expected object');
  checkWirePodShape(pod, path);
  let requests;
  try {
    requests = effectivePodRequests(pod, { quantities });
  } catch (err) {
    if (err instanceof QuantityError) throw new InputError(`${path}.${err.path ?? 'spec'}`, err.message);
    throw err;
  }
  return podEntryWithRequests(pod, requests);
}
