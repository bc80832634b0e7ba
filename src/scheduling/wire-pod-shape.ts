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

function refuse(path: string, expected: string, value: unknown): never {
  throw new InputError(path, `expected ${expected}, got ${jsonTypeName(value)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function check(value: unknown, shape: Shape, path: string): void {
  if (value === null || value === undefined) return;
  if (shape === 'string') {
    if (typeof value !== 'string') refuse(path, 'string', value);
  } else if (shape === 'int') {
    if (typeof value !== 'number' || !Number.isInteger(value)) refuse(path, 'integer', value);
  } else if (shape === 'bool') {
    if (typeof value !== 'boolean') refuse(path, 'boolean', value);
  } else if (shape === 'quantity') {
    if (typeof value !== 'string' && typeof value !== 'number') refuse(path, 'quantity (string or number)', value);
  } else if ('array' in shape) {
    if (!Array.isArray(value)) refuse(path, 'array', value);
    // Go would read a null element of a struct slice as a zero struct; every reader here dereferences it, so refused.
    const elementsAreObjects = typeof shape.array === 'object' && 'object' in shape.array;
    for (let i = 0; i < value.length; i++) {
      if (elementsAreObjects && value[i] === null) refuse(indexPath(path, i), 'object', null);
      check(value[i], shape.array, indexPath(path, i));
    }
  } else if ('map' in shape) {
    if (!isObject(value)) refuse(path, 'object', value);
    for (const key of Object.keys(value)) check(value[key], shape.map, childPath(path, key));
  } else {
    if (!isObject(value)) refuse(path, 'object', value);
    for (const [key, fieldShape] of Object.entries(shape.object)) {
      if (Object.hasOwn(value, key)) check(value[key], fieldShape, childPath(path, key));
    }
  }
}

/** Throws an InputError naming the JSON path of the first value of the wrong type in the pod at `path`. */
export function checkWirePodShape(pod: unknown, path: string): void {
  check(pod, POD, path);
}
