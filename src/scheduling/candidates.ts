/**
 * The candidate nodes of an extender call, as parallel arrays: names, and in Nodes mode the request's own Node
 * objects (echoed back untouched). Kept as plain arrays because a call can carry 5000 nodes.
 */
import { InputError } from '../protocol/errors.js';
import type { ExtenderArgs, WireObject } from '../protocol/types.js';

export interface Candidates {
  mode: 'names' | 'nodes';
  names: readonly string[];
  /** Nodes mode only: `wires[i]` is the Node object named `names[i]`. */
  wires?: readonly WireObject[];
}

/**
 * A slot number no candidate resolves to: slots are never negative, and a candidate list resolves -1 for a
 * name without a known node, so comparing a candidate's slot with it never matches (a node to single out, absent).
 */
export const NO_SLOT = -2;

export function candidatesFromArgs(args: ExtenderArgs): Candidates {
  if (args.NodeNames !== null) return { mode: 'names', names: args.NodeNames };
  if (args.Nodes !== null) {
    const wires = args.Nodes.items;
    const names = wires.map((item, i) => {
      const meta = item['metadata'] as { name?: unknown } | undefined;
      const name = meta?.name;
      if (typeof name !== 'string' || name === '') throw new InputError(`$.Nodes.items[${i}].metadata.name`, 'expected a node name');
      return name;
    });
    return { mode: 'nodes', names, wires };
  }
  throw new InputError('$', 'one of NodeNames or Nodes must be set');
}
