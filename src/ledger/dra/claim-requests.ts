/**
 * A claim's device requests and constraints in the shape the allocator walks them: each request with its
 * alternatives (one for `exactly`, the `firstAvailable` subrequests in order), each constraint typed. Built once per
 * claim object and kept by the DRA ledger's `ClaimShapes`: a claim is never changed in place (a watch event brings a
 * new object), and a first-seen claim pod is assessed on every candidate node. Weak: the value holds parts of the
 * claim, never the claim.
 */
import type { ExactDeviceRequest, ResourceClaimObject } from '../objects.js';
import type { ClaimConstraint } from './device-constraints.js';

export interface RequestAlternative extends ExactDeviceRequest {
  name: string;
}

export interface ClaimRequest {
  name: string;
  alternatives: RequestAlternative[];
  /** True for a `firstAvailable` request: result names are `request/subrequest`. */
  firstAvailable: boolean;
}

export interface ClaimShape {
  requests: readonly ClaimRequest[];
  constraints: readonly ClaimConstraint[];
  /** A constraint of a kind kube-ledger does not know (the allocator refuses the claim). */
  unknownConstraint?: string;
}

/** Each claim object's shape, built on first use; owned by the DRA ledger. */
export class ClaimShapes {
  private readonly shapes = new WeakMap<ResourceClaimObject, ClaimShape>();

  shapeOf(claim: ResourceClaimObject): ClaimShape {
    let shape = this.shapes.get(claim);
    if (shape === undefined) {
      shape = buildShape(claim);
      this.shapes.set(claim, shape);
    }
    return shape;
  }

  requestsOf(claim: ResourceClaimObject): readonly ClaimRequest[] {
    return this.shapeOf(claim).requests;
  }
}

function buildShape(claim: ResourceClaimObject): ClaimShape {
  const devices = claim.spec?.devices;
  const requests = (devices?.requests ?? []).map((r) => ({
    name: r.name,
    alternatives: r.exactly ? [{ ...r.exactly, name: r.name }] : (r.firstAvailable ?? []),
    firstAvailable: !r.exactly && (r.firstAvailable?.length ?? 0) > 0,
  }));
  const shape: ClaimShape = { requests, constraints: [] };
  const constraints: ClaimConstraint[] = [];
  for (const [i, c] of (devices?.constraints ?? []).entries()) {
    const requestNames = new Set(c.requests ?? []);
    if (c.matchAttribute !== undefined) constraints.push({ kind: 'match', attribute: c.matchAttribute, requests: requestNames });
    else if (c.distinctAttribute !== undefined) constraints.push({ kind: 'distinct', attribute: c.distinctAttribute, requests: requestNames });
    else shape.unknownConstraint ??= `constraint #${i} is empty (unsupported constraint type?)`;
  }
  shape.constraints = constraints;
  return shape;
}
