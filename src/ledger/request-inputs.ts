/**
 * Whether two trimmed objects of one pod have the same effective requests without computing them: every field
 * `effectivePodRequests` and the non-zero rule read is equal. A binding (the scheduler sets spec.nodeName, status
 * gains a condition) changes none of them, so a pending pod's record lends its requests to its bound row.
 *
 * The status fields count only through resize (pod-requests.ts `hasResizeStatus`, `isResizeInfeasible`): two objects
 * without resize status and with the same Infeasible verdict aggregate their spec lists alike whatever else the
 * status holds. Anything else, compare nothing and compute.
 */
import type { PodObject } from './objects.js';
import { hasResizeStatus, isResizeInfeasible } from './pod-requests.js';

export function sameRequestInputs(a: PodObject, b: PodObject): boolean {
  const specA = a.spec;
  const specB = b.spec;
  if (specA === undefined || specB === undefined) return false;
  if (hasResizeStatus(a) || hasResizeStatus(b) || isResizeInfeasible(a) !== isResizeInfeasible(b)) return false;
  return jsonEqual(specA.containers, specB.containers) && jsonEqual(specA.initContainers, specB.initContainers)
    && jsonEqual(specA.overhead, specB.overhead) && jsonEqual(specA.resources, specB.resources);
}

/** Equality of decoded JSON values (objects, arrays, strings, numbers, booleans, null; absent is undefined). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && arraysEqual(a, b);
  return objectsEqual(a as Record<string, unknown>, b as Record<string, unknown>);
}

function arraysEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
  return true;
}

function objectsEqual(x: Record<string, unknown>, y: Record<string, unknown>): boolean {
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const key of keys) if (!Object.hasOwn(y, key) || !jsonEqual(x[key], y[key])) return false;
  return true;
}
