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
import { checkWirePodShape } from './wire-pod-shape.js';

/**
 * The last wire pod read and its entry. A prioritize that follows its filter is handed the filter's own Pod object
 * when its text is the same (protocol/extender-args-text.ts), so its entry is the filter's: the requests are not
 * computed again. Wire objects are never changed once decoded, and an entry depends on nothing but its pod.
 */
let lastWire: WireObject | undefined;
let lastEntry: PodEntry | undefined;

export function incomingPodFromWire(wire: WireObject | null, path = '$.Pod'): PodEntry {
  if (wire !== null && wire === lastWire) return lastEntry!;
  const entry = entryFromWire(wire, path);
  lastWire = wire!;
  lastEntry = entry;
  return entry;
}

function entryFromWire(wire: WireObject | null, path: string): PodEntry {
  if (wire === null) throw new InputError(path, 'pod is required');
  const pod = wire as unknown as PodObject;
  if (typeof pod.metadata !== 'object' || pod.metadata === null) throw new InputError(`${path}.metadata`, 'expected object');
  checkWirePodShape(pod, path);
  let requests;
  try {
    requests = effectivePodRequests(pod);
  } catch (err) {
    if (err instanceof QuantityError) throw new InputError(`${path}.${err.path ?? 'spec'}`, err.message);
    throw err;
  }
  return podEntryWithRequests(pod, requests);
}
