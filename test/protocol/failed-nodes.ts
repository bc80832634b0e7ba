/**
 * Builds a plain FailedNodes map the way the filter built one before its replies were joined from fragments: the
 * reference the fragment encoding is compared with. A node named `__proto__` (never a valid node name, but a request
 * can say anything) becomes an own key instead of replacing the map's prototype.
 */
import type { FailedNodesMap } from '../../src/protocol/types.js';

export function setNodeReason(map: FailedNodesMap, node: string, reason: string): void {
  if (node === '__proto__') Object.defineProperty(map, node, { value: reason, enumerable: true, writable: true, configurable: true });
  else map[node] = reason;
}
