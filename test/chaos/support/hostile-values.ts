/** Hand-picked hostile values: malformed quantities, out-of-range numbers, prototype keys, invalid UTF-8 bytes. */
import type { JsonPath } from './json-surgery.js';

/** Every malformed form the brief names, plus near misses of valid Kubernetes quantities. */
export const MALFORMED_QUANTITIES: readonly string[] = [
  '1.2.3', '1KB', '--1', '1e', 'Ki', '\uff11', ' 1', '1 ', '', '+', '-', '.', '1..', '1e999999999', '1E-999999999',
  '1e2147483648', '1e-2147483649', '1Ei1', '0x10', '1_000', '\u221e', 'NaN', 'Infinity', '-Infinity', '1mi', '1m1',
  '1kk', '1E', '1e+', '1e-', 'e1', '1ee1', '1Mi ', '1\u0000', '1\n', '\u0661', '1\u00a0', '\uff11Ki', '1,5', '1/2',
  '9'.repeat(10_000), '1.' + '0'.repeat(5_000) + '1', '0.' + '0'.repeat(2_000) + '1', '9'.repeat(40) + 'Ei',
  '-9223372036854775809', '9223372036854775808Ei', '1e18446744073709551616', '1Pi1', '0e', '.e1', '+-1', '-+1',
  // valid but extreme: must not break anything either
  '9223372036854775807', '-9223372036854775808', '1E18', '0.000000001', '1n', '1u', '999Ei', '-1', '0', '+1.e3',
];

/** Raw JSON number literals that JSON.stringify cannot write (or that lose precision as doubles). */
export const HOSTILE_NUMBER_LITERALS: readonly string[] = [
  '1e400', '-1e400', '-0', '-0.0', '18446744073709551616', '9223372036854775808', '9223372036854775807',
  '-9223372036854775809', '1.5', '1e-400', '123456789012345678901234567890', '2e308', '4294967296', '1E2',
  '1' + '0'.repeat(400), '0.1', '-1', '5e-324', '9007199254740993',
];

export const PROTOTYPE_KEYS: readonly string[] = [
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'toJSON',
];

/** Byte sequences a strict UTF-8 decoder must refuse. */
export const INVALID_UTF8: readonly number[][] = [
  [0xff], [0xfe], [0x80], [0xbf], [0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98],
  [0xc3], [0xc3, 0x28], [0xa0, 0xa1],
];

/** Where in a request body quantities live (missing objects on the way are created). */
export const QUANTITY_PATHS: readonly JsonPath[] = [
  ['Pod', 'spec', 'containers', 0, 'resources', 'requests', 'cpu'],
  ['Pod', 'spec', 'containers', 0, 'resources', 'requests', 'memory'],
  ['Pod', 'spec', 'containers', 0, 'resources', 'limits', 'memory'],
  ['Pod', 'spec', 'containers', 0, 'resources', 'limits', 'cpu'],
  ['Pod', 'spec', 'containers', 0, 'resources', 'requests', 'example.com/gpu'],
  ['Pod', 'spec', 'containers', 0, 'resources', 'requests', 'hugepages-2Mi'],
  ['Pod', 'spec', 'containers', 0, 'resources', 'requests', 'ephemeral-storage'],
  ['Pod', 'spec', 'initContainers', 0, 'resources', 'requests', 'cpu'],
  ['Pod', 'spec', 'initContainers', 0, 'resources', 'limits', 'cpu'],
  ['Pod', 'spec', 'overhead', 'memory'],
  ['Pod', 'spec', 'resources', 'requests', 'cpu'],
  ['Pod', 'spec', 'resources', 'limits', 'memory'],
];

/** Fields with a JSON type the decoder or the scheduling code relies on. */
export const TYPED_PATHS: readonly JsonPath[] = [
  [], ['Pod'], ['Pod', 'metadata'], ['Pod', 'metadata', 'name'], ['Pod', 'metadata', 'namespace'], ['Pod', 'metadata', 'uid'],
  ['Pod', 'metadata', 'labels'], ['Pod', 'metadata', 'deletionTimestamp'], ['Pod', 'spec'], ['Pod', 'spec', 'priority'],
  ['Pod', 'spec', 'containers'], ['Pod', 'spec', 'containers', 0], ['Pod', 'spec', 'containers', 0, 'resources'],
  ['Pod', 'spec', 'containers', 0, 'resources', 'requests'], ['Pod', 'spec', 'initContainers'],
  ['Pod', 'spec', 'initContainers', 0, 'restartPolicy'], ['Pod', 'spec', 'overhead'], ['Pod', 'spec', 'nodeName'],
  ['Pod', 'status'], ['Pod', 'status', 'nominatedNodeName'], ['Pod', 'spec', 'resourceClaims'],
  ['Pod', 'status', 'resourceClaimStatuses'], ['Nodes'], ['Nodes', 'items'], ['Nodes', 'items', 0],
  ['Nodes', 'items', 0, 'metadata'], ['Nodes', 'items', 0, 'metadata', 'name'], ['NodeNames'], ['NodeNames', 0],
  ['NodeNameToMetaVictims'], ['NodeNameToMetaVictims', 'small'], ['NodeNameToMetaVictims', 'small', 'Pods'],
  ['NodeNameToMetaVictims', 'small', 'Pods', 0], ['NodeNameToMetaVictims', 'small', 'Pods', 0, 'UID'],
  ['NodeNameToMetaVictims', 'small', 'NumPDBViolations'], ['NodeNameToVictims'], ['NodeNameToVictims', 'small', 'Pods'],
  ['NodeNameToVictims', 'small', 'Pods', 0], ['NodeNameToVictims', 'small', 'Pods', 0, 'metadata', 'uid'],
  ['NodeNameToVictims', 'small', 'NumPDBViolations'],
];

/** Values of every JSON type, for retyping a field. */
export const TYPE_POOL: readonly unknown[] = [null, true, false, 0, -1, 1.5, '', 'x', [], {}, [null], [[]], { a: 1 }, ['1'], '1'];

/** Spellings of the top-level keys Go would fold onto the same field, and some it would not. */
export const KEY_SPELLINGS: Readonly<Record<string, readonly string[]>> = {
  filter: ['Pod', 'pod', 'POD', 'Nodes', 'nodes', 'NodeNames', 'nodenames', 'NODENAMES', 'nodeNames', 'Node_Names'],
  preempt: ['Pod', 'pod', 'NodeNameToVictims', 'nodenametovictims', 'NodeNameToMetaVictims', 'nodeNameToMetaVictims',
    'NODENAMETOMETAVICTIMS', 'NodeNameToMetaVictim'],
};
