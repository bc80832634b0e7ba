/**
 * The per-device checks of the structured allocator besides selectors and capacity: a claim's constraints
 * (`matchAttributeConstraint`, `distinctAttributeConstraint`: the devices of the named requests share, or never share,
 * an attribute value; a device without the attribute never satisfies either) and device taints
 * (`taintPreventsAllocation`: a NoSchedule or NoExecute taint must be tolerated by the request).
 */
import type { DeviceAttributeValue, DeviceTaint, DeviceToleration } from '../objects.js';
import type { DeviceRecord } from './device-index.js';

export interface ClaimConstraint {
  kind: 'match' | 'distinct';
  attribute: string;
  /** Requests (or `request/subrequest`) the constraint covers; empty: every request of the claim. */
  requests: ReadonlySet<string>;
}

/** The live state of one constraint while devices are added and removed (as the allocator's constraint objects). */
export class ConstraintState {
  private readonly values = new Map<string, DeviceAttributeValue>();

  constructor(readonly constraint: ClaimConstraint) {}

  applies(request: string, subRequest: string | undefined): boolean {
    const names = this.constraint.requests;
    if (names.size === 0) return true;
    return names.has(request) || (subRequest !== undefined && names.has(`${request}/${subRequest}`));
  }

  /** Whether the device may join; when it may, it is recorded (remove it on backtracking). */
  add(device: DeviceRecord): boolean {
    const value = device.cel.attributes[this.constraint.attribute];
    if (value === undefined) return false;
    const others = [...this.values.values()];
    if (this.constraint.kind === 'match' ? others.some((v) => !sameAttribute(v, value)) : others.some((v) => sameAttribute(v, value))) return false;
    this.values.set(device.key + '#' + this.values.size, value);
    return true;
  }

  remove(device: DeviceRecord): void {
    for (const key of [...this.values.keys()].reverse()) {
      if (key.startsWith(device.key + '#')) {
        this.values.delete(key);
        return;
      }
    }
  }
}

function sameAttribute(a: DeviceAttributeValue, b: DeviceAttributeValue): boolean {
  if (a.string !== undefined || b.string !== undefined) return a.string === b.string;
  if (a.int !== undefined || b.int !== undefined) return a.int === b.int;
  if (a.bool !== undefined || b.bool !== undefined) return a.bool === b.bool;
  if (a.version !== undefined || b.version !== undefined) return a.version === b.version;
  return false;
}

/** upstream taintPreventsAllocation: an untolerated NoSchedule or NoExecute taint keeps the device out. */
export function taintPreventsAllocation(taints: readonly DeviceTaint[], tolerations: readonly DeviceToleration[]): boolean {
  return taints.some((taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerations.some((t) => tolerates(t, taint)));
}

/** resourceclaim.ToleratesTaint. */
function tolerates(toleration: DeviceToleration, taint: DeviceTaint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  const operator = toleration.operator ?? 'Equal';
  if (operator === 'Exists') return true;
  if (!toleration.key) return false; // an empty key needs Exists
  return (toleration.value ?? '') === (taint.value ?? '');
}
