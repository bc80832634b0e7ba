/**
 * fast-check generators of hostile extender requests, one per category of the reliability brief. Each produces the
 * exact bytes to send, the verb, and how the body is framed; every category reaches all three verbs.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { VALID_REQUESTS, VERBS, type ValidRequest, type Verb } from './chaos-cluster.js';
import { allPaths, dropAt, renameAt, replaceAt, spliceBytes, spliceRaw, type JsonPath } from './json-surgery.js';
import {
  HOSTILE_NUMBER_LITERALS, INVALID_UTF8, KEY_SPELLINGS, MALFORMED_QUANTITIES, PROTOTYPE_KEYS, QUANTITY_PATHS,
  TYPED_PATHS, TYPE_POOL,
} from './hostile-values.js';

export interface HostileCase {
  category: string;
  verb: Verb;
  body: Buffer;
  chunked?: boolean;
  contentType?: string;
}

const baseRequest = fc.constantFrom(...VALID_REQUESTS);
const anyVerb = fc.constantFrom(...VERBS);
const framing = fc.boolean();
const clone = (request: ValidRequest): Record<string, unknown> => structuredClone(request.body);

/** How fast-check prints a counterexample: a preview, not a 1 MiB byte array. */
export function describeCase(sent: HostileCase): string {
  const preview = sent.body.subarray(0, 300).toString('latin1');
  return `${sent.category}, ${sent.verb} (${sent.body.length} bytes${sent.chunked ? ', chunked' : ''}): ${preview}`;
}

function hostile(category: string, verb: Verb, body: string | Buffer, chunked = false): HostileCase {
  const sent: HostileCase = { category, verb, body: typeof body === 'string' ? Buffer.from(body) : body, chunked };
  Object.defineProperty(sent, fc.toStringMethod, { value: () => describeCase(sent) });
  return sent;
}

/** A path of the base body picked by an index (paths change with the base, so the index wraps). */
function pathAt(body: unknown, index: number): JsonPath {
  const paths = allPaths(body);
  return paths.length === 0 ? [] : paths[index % paths.length]!;
}

export const wrongTypes = fc.tuple(baseRequest, fc.constantFrom(...TYPED_PATHS),
  fc.oneof(fc.constantFrom(...TYPE_POOL), fc.jsonValue({ maxDepth: 2 })), framing)
  .map(([base, path, value, chunked]) =>
    hostile('wrong types', base.verb, JSON.stringify(replaceAt(clone(base), path, value)), chunked));

/** Top-level values that are not objects at all, and objects with random top-level fields. */
export const wrongTopLevel = fc.tuple(anyVerb, fc.oneof(fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(fc.constantFrom('Pod', 'Nodes', 'NodeNames', 'NodeNameToVictims', 'NodeNameToMetaVictims', 'x'),
    fc.jsonValue({ maxDepth: 2 }))))
  .map(([verb, value]) => hostile('wrong types', verb, JSON.stringify(value) ?? 'null'));

export const missingFields = fc.tuple(baseRequest, fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), framing)
  .map(([base, picks, chunked]) => {
    const body = clone(base);
    for (const pick of picks) dropAt(body, pathAt(body, pick));
    return hostile('missing fields', base.verb, JSON.stringify(body), chunked);
  });

const DEEP_OPENERS = ['[', '{"a":', '{"Pod":', '[{"x":'] as const;
const DEEP_CLOSERS: Record<(typeof DEEP_OPENERS)[number], string> = { '[': ']', '{"a":': '}', '{"Pod":': '}', '[{"x":': '}]' };

/** Up to 100k levels, closed or not, at the top or in place of any field. */
export const deepNesting = fc.tuple(baseRequest, fc.integer({ min: 1_000, max: 100_000 }), fc.constantFrom(...DEEP_OPENERS),
  fc.oneof(fc.constant(-1), fc.nat()), fc.boolean(), framing)
  .map(([base, depth, opener, pick, closed, chunked]) => {
    const levels = opener.length > 2 ? Math.min(depth, 60_000) : depth; // stay under the 1 MiB body limit
    const deep = opener.repeat(levels) + '1' + (closed ? DEEP_CLOSERS[opener].repeat(levels) : '');
    const text = pick < 0 ? deep : spliceRaw(base.body, pathAt(base.body, pick), deep);
    return hostile('deep nesting', base.verb, text, chunked);
  });

const ghostNames = (count: number, known: boolean) =>
  Array.from({ length: count }, (_, i) => (known && i % 7 === 0 ? 'big' : `ghost-${i}`));

/** Large bodies still under the limit: long name lists, many nodes, many victims, many containers. */
export function hugeArraysWithin(limitBytes: number) {
  const shapes = fc.oneof(
    fc.integer({ min: 1_000, max: 60_000 }).map((n) => ({ verb: 'filter' as Verb, body: { Pod: VALID_REQUESTS[0]!.body['Pod'], Nodes: null, NodeNames: ghostNames(n, true) } })),
    fc.integer({ min: 1_000, max: 60_000 }).map((n) => ({ verb: 'prioritize' as Verb, body: { Pod: VALID_REQUESTS[0]!.body['Pod'], NodeNames: ghostNames(n, true) } })),
    fc.integer({ min: 100, max: 12_000 }).map((n) => ({ verb: 'filter' as Verb, body: { Pod: VALID_REQUESTS[0]!.body['Pod'],
      Nodes: { items: ghostNames(n, true).map((name) => ({ metadata: { name } })) } } })),
    fc.integer({ min: 100, max: 10_000 }).map((n) => ({ verb: 'preempt' as Verb, body: { Pod: VALID_REQUESTS[0]!.body['Pod'],
      NodeNameToMetaVictims: Object.fromEntries(ghostNames(n, false).map((name) => [name, { Pods: [{ UID: 'u-low-a' }], NumPDBViolations: 0 }])) } })),
    fc.integer({ min: 100, max: 15_000 }).map((n) => ({ verb: 'preempt' as Verb, body: { Pod: VALID_REQUESTS[0]!.body['Pod'],
      NodeNameToMetaVictims: { small: { Pods: Array.from({ length: n }, (_, i) => ({ UID: i % 2 ? 'u-low-a' : `u-${i}` })), NumPDBViolations: 0 } } } })),
    fc.tuple(anyVerb, fc.integer({ min: 100, max: 10_000 })).map(([verb, n]) => ({ verb, body: { Pod: { metadata: { name: 'wide' },
      spec: { containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, resources: { requests: { cpu: '1m' } } })) } },
      NodeNames: ['big'], NodeNameToMetaVictims: { small: { Pods: [{ UID: 'u-low-a' }] } } } })),
    fc.tuple(anyVerb, fc.integer({ min: 10_000, max: 200_000 })).map(([verb, n]) => ({ verb, body: new Array(n).fill(0) })),
  );
  return fc.tuple(shapes, framing).map(([shape, chunked]) => {
    let text = JSON.stringify(shape.body);
    if (text.length > limitBytes) text = text.slice(0, limitBytes); // truncated JSON, still a valid exchange
    return hostile('huge arrays within limit', shape.verb, text, chunked);
  });
}

/** Bodies from just over the limit to 3x it, declared or chunked. */
export function hugeArraysBeyond(limitBytes: number) {
  return fc.tuple(anyVerb, fc.integer({ min: limitBytes + 1, max: 3 * limitBytes }), framing).map(([verb, size, chunked]) => {
    const prefix = '{"NodeNames":[';
    const names = '"ghost",'.repeat(Math.ceil(size / 8));
    return hostile('huge arrays beyond limit', verb, (prefix + names).slice(0, size - 2) + ']}', chunked);
  });
}

/** Objects written as text with repeated keys, in Go-equivalent spellings, at the top and inside requests. */
export const duplicateKeys = fc.oneof(
  fc.tuple(baseRequest, fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constant<unknown>('valid'), fc.jsonValue({ maxDepth: 2 }))),
    { minLength: 2, maxLength: 8 }))
    .map(([base, members]) => {
      const spellings = KEY_SPELLINGS[base.verb === 'preempt' ? 'preempt' : 'filter']!;
      const fields = Object.keys(base.body);
      const text = members.map(([pick, value]) => {
        const key = spellings[pick % spellings.length]!;
        const field = fields.find((f) => f.toLowerCase() === key.toLowerCase());
        const chosen = value === 'valid' && field ? base.body[field] : value;
        return `${JSON.stringify(key)}:${JSON.stringify(chosen) ?? 'null'}`;
      });
      return hostile('duplicate keys', base.verb, `{${text.join(',')}}`);
    }),
  fc.tuple(baseRequest, fc.constantFrom(...QUANTITY_PATHS.map((path) => path.slice(0, -1))), fc.constantFrom(...MALFORMED_QUANTITIES))
    .map(([base, mapPath, bad]) => hostile('duplicate keys', base.verb,
      spliceRaw(base.body, mapPath, `{"cpu":"1","cpu":${JSON.stringify(bad)},"CPU":"2","memory":"1Mi","memory":{}}`))),
);

export const invalidUtf8 = fc.tuple(baseRequest, fc.constantFrom(...INVALID_UTF8), fc.nat(), fc.constantFrom('in string', 'anywhere', 'bom'), framing)
  .map(([base, bytes, pick, where, chunked]) => {
    const text = JSON.stringify(base.body);
    let body: Buffer;
    if (where === 'bom') body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    else if (where === 'anywhere') {
      const at = pick % (text.length + 1);
      body = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bytes), Buffer.from(text.slice(at))]);
    } else body = spliceBytes(base.body, pathAt(base.body, pick), Buffer.concat([Buffer.from('"a'), Buffer.from(bytes), Buffer.from('b"')]));
    return hostile('invalid UTF-8', base.verb, body, chunked);
  });

export const truncatedBodies = fc.tuple(baseRequest, fc.nat(), framing).map(([base, cut, chunked]) => {
  const text = JSON.stringify(base.body);
  return hostile('truncated bodies', base.verb, Buffer.from(text).subarray(0, cut % text.length), chunked);
});

/** __proto__ and friends as keys anywhere, as node names, and as resource names. */
export const prototypeKeys = fc.tuple(baseRequest, fc.constantFrom(...PROTOTYPE_KEYS), fc.nat(),
  fc.oneof(fc.constant<unknown>({ polluted: true, spec: { nodeName: 'big' } }), fc.constant<unknown>('1'), fc.jsonValue({ maxDepth: 2 })),
  fc.constantFrom('insert', 'rename', 'node name', 'resource name'))
  .map(([base, key, pick, value, how]) => {
    const body = clone(base);
    const path = pathAt(body, pick);
    if (how === 'rename') renameAt(body, path, key);
    else if (how === 'node name') {
      replaceAt(body, ['NodeNames'], ['big', key]);
      replaceAt(body, ['NodeNameToMetaVictims', key], { Pods: [{ UID: 'u-low-a' }], NumPDBViolations: 0 });
    } else if (how === 'resource name') replaceAt(body, ['Pod', 'spec', 'containers', 0, 'resources', 'requests', key], '1');
    else replaceAt(body, [...path.slice(0, -1), key], value);
    return hostile('prototype keys', base.verb, JSON.stringify(body));
  });

export const outOfRangeNumbers = fc.tuple(baseRequest,
  fc.constantFrom<JsonPath>(['Pod', 'spec', 'priority'], ['NodeNameToMetaVictims', 'small', 'NumPDBViolations'],
    ['NodeNameToVictims', 'small', 'NumPDBViolations'], ['NodeNames', 0], ['Pod', 'metadata', 'uid'], [], ...QUANTITY_PATHS),
  fc.oneof(fc.constantFrom(...HOSTILE_NUMBER_LITERALS), fc.double().map((d) => JSON.stringify(d))))
  .map(([base, path, literal]) => hostile('numbers out of range', base.verb, spliceRaw(base.body, path, literal)));

export const malformedQuantities = fc.tuple(baseRequest, fc.constantFrom(...QUANTITY_PATHS),
  fc.oneof(fc.constantFrom(...MALFORMED_QUANTITIES),
    fc.stringMatching(/^[+-]{0,2}[0-9.]{0,24}([eE][+-]?[0-9]{0,12}|[kMGTPE]i?|[mun]|Ki|Mi)?$/),
    fc.string({ maxLength: 12 })))
  .map(([base, path, quantity]) => hostile('malformed quantities', base.verb, JSON.stringify(replaceAt(clone(base), path, quantity))));

/** Go-shaped requests with 1..4 random fields dropped, renamed or retyped anywhere in the body. */
export const mutatedRequests = fc.tuple(baseRequest, fc.array(fc.tuple(fc.constantFrom('drop', 'rename', 'retype'), fc.nat(),
  fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('pod', 'NODENAMES', 'Spec', 'metadata ', 'UID', 'uid'))),
{ minLength: 1, maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), framing)
  .map(([base, edits, value, chunked]) => {
    const body = clone(base);
    for (const [edit, pick, name] of edits) {
      const path = pathAt(body, pick);
      if (edit === 'drop') dropAt(body, path);
      else if (edit === 'rename') renameAt(body, path, name);
      else replaceAt(body, path, structuredClone(value)); // a copy each time: no cycles when an edit lands inside it
    }
    return hostile('mutated Go requests', base.verb, JSON.stringify(body), chunked);
  });

export const randomBytes = fc.tuple(anyVerb, fc.oneof(fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b)),
  fc.string({ maxLength: 200 }).map((s) => Buffer.from(s))), framing)
  .map(([verb, body, chunked]) => hostile('random bytes', verb, body, chunked));

/** Bodies declared compressed (and sometimes compressed): the server reads bodies as sent, so only identity is accepted. */
export const contentEncodings = fc.tuple(baseRequest, fc.constantFrom('gzip', 'deflate', 'br', 'compress', 'x-gzip', 'identity, gzip', 'GZIP'), fc.boolean())
  .map(([base, contentEncoding, compressed]) => {
    const text = JSON.stringify(base.body);
    const sent = hostile('content encodings', base.verb, compressed ? gzipSync(text) : text);
    return Object.assign(sent, { contentEncoding });
  });

export const wrongMediaTypes = fc.tuple(baseRequest, fc.constantFrom('text/plain', 'application/x-www-form-urlencoded',
  'application/json; charset=latin1', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset="utf-16"'))
  .map(([base, contentType]) => Object.assign(hostile('wrong media types', base.verb, JSON.stringify(base.body)), { contentType }));
