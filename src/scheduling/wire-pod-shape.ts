/**
 * The JSON types of the parts of a request's pod that kube-ledger reads, checked before anything reads them, the way
 * kube-scheduler's own decoder (Go encoding/json into v1.Pod) refuses a request whose `containers` is an object or
 * whose `requests` is an array ("cannot unmarshal object into Go struct field PodSpec.spec.containers of type
 * []v1.Container"). Without it such a pod would be read as asking for nothing. As in Go, `null` is accepted for a
 * field (a nil slice, map or pointer; an unchanged scalar), but not as an element of a list of objects; keys not
 * listed are ignored. A quantity is a string or a
 * number (resource.Quantity's UnmarshalJSON takes both); its text is checked where it is parsed.
 */
import { InputError } from '../protocol/errors.js';
import { childPath, indexPath, jsonTypeName } from '../protocol/json-shape.js';

type Shape =
  | 'string'
  | 'int'
  | 'bool'
  | 'quantity'
  | { readonly object: Readonly<Record<string, Shape>>; readonly open?: true }
  | { readonly array: Shape }
  | { readonly map: Shape };

const strings: Shape = { array: 'string' };
const resourceList: Shape = { map: 'quantity' };
const requestsAndLimits: Shape = { object: { requests: resourceList, limits: resourceList } };
const labelSelector: Shape = {
  object: { matchLabels: { map: 'string' }, matchExpressions: { array: { object: { key: 'string', operator: 'string', values: strings } } } },
};
const nodeSelectorRequirement: Shape = { object: { key: 'string', operator: 'string', values: strings } };
const podAffinityTerm: Shape = {
  object: { labelSelector, namespaces: strings, namespaceSelector: labelSelector, topologyKey: 'string', matchLabelKeys: strings, mismatchLabelKeys: strings },
};
const requiredTerms: Shape = { object: { requiredDuringSchedulingIgnoredDuringExecution: { array: podAffinityTerm } } };

const container: Shape = {
  object: {
    name: 'string',
    restartPolicy: 'string',
    resources: { object: { requests: resourceList, limits: resourceList, claims: { array: { object: { name: 'string', request: 'string' } } } } },
    ports: { array: { object: { hostPort: 'int', containerPort: 'int', protocol: 'string', hostIP: 'string' } } },
  },
};
const containerStatus: Shape = { object: { name: 'string', allocatedResources: resourceList, resources: requestsAndLimits } };

const metadata: Shape = {
  object: {
    name: 'string',
    namespace: 'string',
    uid: 'string',
    resourceVersion: 'string',
    generation: 'int',
    deletionTimestamp: 'string',
    creationTimestamp: 'string',
    labels: { map: 'string' },
    annotations: { map: 'string' },
    ownerReferences: { array: { object: { apiVersion: 'string', kind: 'string', name: 'string', uid: 'string', controller: 'bool' } } },
  },
};

const spec: Shape = {
  object: {
    nodeName: 'string',
    schedulerName: 'string',
    priority: 'int',
    priorityClassName: 'string',
    preemptionPolicy: 'string',
    containers: { array: container },
    initContainers: { array: container },
    overhead: resourceList,
    resources: requestsAndLimits,
    resourceClaims: { array: { object: { name: 'string', resourceClaimName: 'string', resourceClaimTemplateName: 'string' } } },
    schedulingGates: { array: { object: { name: 'string' } } },
    nodeSelector: { map: 'string' },
    affinity: {
      object: {
        podAffinity: requiredTerms,
        podAntiAffinity: requiredTerms,
        nodeAffinity: {
          object: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              object: { nodeSelectorTerms: { array: { object: { matchExpressions: { array: nodeSelectorRequirement }, matchFields: { array: nodeSelectorRequirement } } } } },
            },
          },
        },
      },
    },
    tolerations: { array: { object: { key: 'string', operator: 'string', value: 'string', effect: 'string', tolerationSeconds: 'int' } } },
    topologySpreadConstraints: {
      array: { object: { maxSkew: 'int', topologyKey: 'string', whenUnsatisfiable: 'string', labelSelector, matchLabelKeys: strings } },
    },
    // A volume's source keys vary (persistentVolumeClaim, ephemeral, csi, in-tree disks): only the ones read are typed.
    volumes: { array: { object: { name: 'string', persistentVolumeClaim: { object: { claimName: 'string' } } }, open: true } },
  },
};

const status: Shape = {
  object: {
    phase: 'string',
    startTime: 'string',
    nominatedNodeName: 'string',
    resourceClaimStatuses: { array: { object: { name: 'string', resourceClaimName: 'string' } } },
    conditions: { array: { object: { type: 'string', status: 'string', reason: 'string' } } },
    containerStatuses: { array: containerStatus },
    initContainerStatuses: { array: containerStatus },
    allocatedResources: resourceList,
    resources: requestsAndLimits,
    nodeAllocatableResourceClaimStatuses: {
      array: {
        object: {
          resourceClaimName: 'string',
          containers: strings,
          resources: resourceList,
          mapping: { array: { object: { name: 'string', quantity: 'string' } } },
          overhead: { array: { object: { name: 'string', perPod: 'string', perContainer: 'string' } } },
        },
      },
    },
    extendedResourceClaimStatus: {
      object: {
        resourceClaimName: 'string',
        requestMappings: { array: { object: { containerName: 'string', resourceName: 'string', requestName: 'string' } } },
      },
    },
  },
};

const POD: Shape = { object: { metadata, spec, status } };

/**
 * A shape built once into nodes of one class (the walk's reads stay monomorphic): each object's fields in a map, so a
 * check walks the keys the object has, not every field.
 */
const STRING = 0;
const INT = 1;
const BOOL = 2;
const QUANTITY = 3;
const FIELDS = 4;
const ARRAY = 5;
const MAP = 6;

const SCALAR_KINDS = { string: STRING, int: INT, bool: BOOL, quantity: QUANTITY } as const;
/** The name an error gives each scalar kind. */
const EXPECTED = ['string', 'integer', 'boolean', 'quantity (string or number)'];

const NO_FIELDS: ReadonlyMap<string, Compiled> = new Map();

class Compiled {
  /** The shape of an array's or a map's elements (the node itself for any other kind). */
  readonly element: Compiled;

  constructor(
    readonly kind: number,
    /** An object's fields (empty for any other kind). */
    readonly fields: ReadonlyMap<string, Compiled>,
    element: Compiled | undefined,
    /** An array of objects: a null element is refused. */
    readonly ofObjects: boolean,
  ) {
    this.element = element ?? this;
  }
}

function compile(shape: Shape): Compiled {
  if (typeof shape === 'string') return new Compiled(SCALAR_KINDS[shape], NO_FIELDS, undefined, false);
  if ('array' in shape) return new Compiled(ARRAY, NO_FIELDS, compile(shape.array), typeof shape.array === 'object' && 'object' in shape.array);
  if ('map' in shape) return new Compiled(MAP, NO_FIELDS, compile(shape.map), false);
  return new Compiled(FIELDS, new Map(Object.entries(shape.object).map(([key, field]) => [key, compile(field)] as const)), undefined, false);
}

const COMPILED_POD = compile(POD);

/**
 * The first value of a wrong type: what the shape expected there, what came, and the keys and indexes leading to it,
 * recorded only on the way back out of a failed walk (innermost first), so a valid pod's walk builds no path.
 */
class Mismatch {
  expected = '';
  value: unknown = undefined;
  readonly stepsOut: Array<string | number> = [];

  at(expected: string, value: unknown): false {
    this.expected = expected;
    this.value = value;
    return false;
  }

  via(step: string | number): false {
    this.stepsOut.push(step);
    return false;
  }

  pathBelow(root: string): string {
    let path = root;
    for (let i = this.stepsOut.length - 1; i >= 0; i--) {
      const step = this.stepsOut[i] ?? '';
      path = typeof step === 'number' ? indexPath(path, step) : childPath(path, step);
    }
    return path;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function acceptsScalar(value: unknown, kind: number): boolean {
  switch (kind) {
    case STRING:
      return typeof value === 'string';
    case INT:
      return typeof value === 'number' && Number.isInteger(value);
    case BOOL:
      return typeof value === 'boolean';
    default:
      return typeof value === 'string' || typeof value === 'number';
  }
}

/** Whether every value the shape types has its type; on the first that has not, false with `mismatch` filled. */
function conforms(value: unknown, shape: Compiled, mismatch: Mismatch): boolean {
  if (value === null || value === undefined) return true;
  switch (shape.kind) {
    case FIELDS:
      return fieldsConform(value, shape.fields, mismatch);
    case ARRAY:
      return elementsConform(value, shape, mismatch);
    case MAP:
      return valuesConform(value, shape.element, mismatch);
    default:
      return acceptsScalar(value, shape.kind) || mismatch.at(EXPECTED[shape.kind] ?? 'value', value);
  }
}

/**
 * The object's own keys in their order (Go's decoder reports the first wrong value in document order); for-in visits
 * a parsed object's own keys (its prototype has no enumerable ones) without building a key array.
 */
function fieldsConform(value: unknown, fields: ReadonlyMap<string, Compiled>, mismatch: Mismatch): boolean {
  if (!isObject(value)) return mismatch.at('object', value);
  for (const key in value) {
    const field = fields.get(key);
    if (field !== undefined && !conforms(value[key], field, mismatch)) return mismatch.via(key);
  }
  return true;
}

function elementsConform(value: unknown, shape: Compiled, mismatch: Mismatch): boolean {
  if (!Array.isArray(value)) return mismatch.at('array', value);
  const element = shape.element;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    // Go would read a null element of a struct slice as a zero struct; every reader here dereferences it, so refused.
    if (item === null && shape.ofObjects) return mismatch.at('object', null) || mismatch.via(i);
    if (!conforms(item, element, mismatch)) return mismatch.via(i);
  }
  return true;
}

function valuesConform(value: unknown, element: Compiled, mismatch: Mismatch): boolean {
  if (!isObject(value)) return mismatch.at('object', value);
  for (const key in value) if (!conforms(value[key], element, mismatch)) return mismatch.via(key);
  return true;
}

/** Throws an InputError naming the JSON path of the first value of the wrong type in the pod at `path`. */
export function checkWirePodShape(pod: unknown, path: string): void {
  const mismatch = new Mismatch();
  if (conforms(pod, COMPILED_POD, mismatch)) return;
  throw new InputError(mismatch.pathBelow(path), `expected ${mismatch.expected}, got ${jsonTypeName(mismatch.value)}`);
}
