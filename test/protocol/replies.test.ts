import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeFilterResult, encodeFilterResultPieces, encodeHostPriorityList, encodeHostPriorityListPieces } from '../../src/protocol/encode.js';
import { setNodeReason } from './failed-nodes.js';
import { FilterReply, quotedReason } from '../../src/protocol/filter-reply.js';
import { hostEntry, PriorityReply } from '../../src/protocol/priority-reply.js';
import type { ExtenderFilterResult, FailedNodesMap, HostPriorityList, WireObject } from '../../src/protocol/types.js';

/** Names a request can carry: node-like, integer-like, prototype keys, quotes, backslashes, control and non-ASCII. */
const nameArb = fc.oneof(
  fc.constantFrom('node-a', '9', '10', '__proto__', 'constructor', 'toString', 'a"b', 'a\\b', 'tab\there', 'é-ñ', '😀', ''),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const reasonArb = fc.constantFrom('Insufficient cpu', 'Too many pods', 'Insufficient cpu, Insufficient memory', "node(s) not in kube-ledger's cache", 'quote " and \\ and é');
const outcomeArb = fc.oneof(
  fc.constant({ kind: 'pass' as const }),
  fc.record({ kind: fc.constantFrom('fail' as const, 'unresolvable' as const), reason: reasonArb }),
);
/** Distinct names (the filter answers each node once), each with an outcome and maybe a pre-encoded name. */
const candidatesArb = fc.uniqueArray(fc.record({ name: nameArb, outcome: outcomeArb, preEncoded: fc.boolean() }), { selector: (c) => c.name, maxLength: 30 });

/** The plain result the same scan would have built before fragments: maps filled with setNodeReason. */
function plainResult(candidates: Array<{ name: string; outcome: { kind: string; reason?: string } }>, wires?: WireObject[]): ExtenderFilterResult {
  const failed: FailedNodesMap = {};
  const unresolvable: FailedNodesMap = {};
  const passed: number[] = [];
  candidates.forEach((c, i) => {
    if (c.outcome.kind === 'pass') passed.push(i);
    else setNodeReason(c.outcome.kind === 'fail' ? failed : unresolvable, c.name, c.outcome.reason!);
  });
  if (wires) return { Nodes: { kind: 'NodeList', items: passed.map((i) => wires[i]!) }, NodeNames: null, FailedNodes: failed, FailedAndUnresolvableNodes: unresolvable, Error: '' };
  return { Nodes: null, NodeNames: passed.map((i) => candidates[i]!.name), FailedNodes: failed, FailedAndUnresolvableNodes: unresolvable, Error: '' };
}

function replyFor(candidates: Array<{ name: string; outcome: { kind: string; reason?: string }; preEncoded: boolean }>, wires?: WireObject[]): FilterReply {
  const reply = new FilterReply(candidates.map((c) => c.name), wires, wires ? { kind: 'NodeList', items: wires } : null);
  candidates.forEach((c, i) => {
    const quoted = c.preEncoded ? JSON.stringify(c.name) : undefined;
    if (c.outcome.kind === 'pass') reply.pass(i, quoted);
    else reply.failQuoted(i, quoted, quotedReason(c.outcome.reason!), c.outcome.kind === 'unresolvable');
  });
  return reply;
}

describe('FilterReply: the filter reply encoded from fragments', () => {
  it('decodes to exactly what the plain result encodes to, for any names and reasons (NodeNames mode)', () => {
    fc.assert(
      fc.property(candidatesArb, (candidates) => {
        const reply = replyFor(candidates);
        const plain = plainResult(candidates);
        const encoded = encodeFilterResult(reply);
        assert.deepEqual(JSON.parse(encoded), JSON.parse(encodeFilterResult(plain)));
        assert.deepEqual(Object.keys(JSON.parse(encoded)), ['Nodes', 'NodeNames', 'FailedNodes', 'FailedAndUnresolvableNodes', 'Error']);
        // Read as fields, it is what was sent.
        assert.deepEqual(reply.toResult(), JSON.parse(encoded));
        assert.deepEqual(reply.toResult(), plain);
      }),
      { numRuns: 300 },
    );
  });

  it('echoes the passing Node objects in full-Nodes mode', () => {
    fc.assert(
      fc.property(candidatesArb, (candidates) => {
        const wires = candidates.map((c) => ({ metadata: { name: c.name }, status: { allocatable: { cpu: '1' } } }));
        const reply = replyFor(candidates, wires);
        assert.deepEqual(JSON.parse(encodeFilterResult(reply)), JSON.parse(encodeFilterResult(plainResult(candidates, wires))));
        assert.equal(reply.NodeNames, null);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps the request order of failing nodes on the wire, integer-like names included', () => {
    const reply = new FilterReply(['node-z', '10', '9', 'node-a']);
    reply.failQuoted(0, '"node-z"', quotedReason('Insufficient cpu'), false);
    reply.failQuoted(1, undefined, quotedReason('Too many pods'), false);
    reply.pass(2, undefined);
    reply.failQuoted(3, undefined, quotedReason('Insufficient memory'), true);
    assert.equal(
      encodeFilterResult(reply),
      '{"Nodes":null,"NodeNames":["9"],"FailedNodes":{"node-z":"Insufficient cpu","10":"Too many pods"},' +
        '"FailedAndUnresolvableNodes":{"node-a":"Insufficient memory"},"Error":""}',
    );
  });

  it('comes in pieces of at most 1024 entries for a long reply, which join to the one-string encoding (5000 candidates)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('pass', 'fail', 'unresolvable'), { minLength: 1000, maxLength: 5000 }), (kinds) => {
        const candidates = kinds.map((kind, i) => ({ name: `node-${i}`, outcome: kind === 'pass' ? { kind } : { kind, reason: 'Insufficient cpu' }, preEncoded: i % 2 === 0 }));
        const reply = replyFor(candidates);
        const pieces = encodeFilterResultPieces(reply);
        assert.equal(pieces.join(''), encodeFilterResult(reply));
        assert.deepEqual(JSON.parse(pieces.join('')), JSON.parse(encodeFilterResult(plainResult(candidates))));
        const counts = [kinds.filter((k) => k === 'pass').length, kinds.filter((k) => k === 'fail').length, kinds.filter((k) => k === 'unresolvable').length];
        // A long join is a piece of its own (no rope for the socket write to flatten), at most 1024 entries.
        const joins = pieces.filter((piece) => piece.length > 1024);
        assert.ok(joins.length >= counts.reduce((n, c) => n + Math.floor(c / 1024), 0));
        for (const piece of joins) {
          assert.match(piece, /^,?"/, 'a long piece starts with an entry');
          assert.ok(piece.split('","').length <= 1024 * 2, `a piece of ${piece.length} characters`);
        }
        for (const piece of pieces) assert.ok(piece.length < 128 * 1024, `a piece of ${piece.length} characters`);
      }),
      { numRuns: 20 },
    );
  });

  it('makes a node named __proto__ an own key when read as fields', () => {
    const reply = new FilterReply(['__proto__']);
    reply.failQuoted(0, undefined, quotedReason('no such node'), false);
    const failed = reply.FailedNodes;
    assert.deepEqual(Object.keys(failed), ['__proto__']);
    assert.equal(Object.getPrototypeOf(failed), Object.prototype);
  });
});

describe('PriorityReply: the prioritize reply encoded from fragments', () => {
  it('encodes byte for byte as the plain HostPriorityList does, for any names, entries handed in or made', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ name: nameArb, score: fc.integer({ min: 0, max: 10 }), preEncoded: fc.boolean() }), { maxLength: 30 }), (hosts) => {
        const reply = new PriorityReply(hosts.map((h) => h.name));
        hosts.forEach((h, i) => reply.add(i, h.score, h.preEncoded ? hostEntry(JSON.stringify(h.name), h.score) : undefined));
        const plain: HostPriorityList = hosts.map((h) => ({ Host: h.name, Score: h.score }));
        assert.equal(encodeHostPriorityList(reply), encodeHostPriorityList(plain));
        assert.equal(encodeHostPriorityListPieces(reply).join(''), encodeHostPriorityList(plain));
        assert.deepEqual(reply.toList(), plain);
      }),
      { numRuns: 300 },
    );
  });

  it('comes in pieces of at most 1024 hosts for a long list, which join to the one-string encoding', () => {
    for (const count of [0, 1, 1023, 1024, 1025, 5000]) {
      const names = Array.from({ length: count }, (_, i) => `node-${i}`);
      const reply = new PriorityReply(names);
      for (let i = 0; i < count; i++) reply.add(i, i % 11, i % 3 === 0 ? undefined : hostEntry(JSON.stringify(names[i]), i % 11));
      const pieces = encodeHostPriorityListPieces(reply);
      for (const piece of pieces) {
        assert.ok(piece.split('{"Host"').length - 1 <= 1024, `${count} hosts: at most 1024 a piece`);
        // A long join is a piece of its own: no rope for the socket write to flatten.
        if (piece.length > 1024) assert.match(piece, /^,?\{"Host"/, `${count} hosts: a long piece starts with an entry`);
      }
      assert.equal(pieces.join(''), encodeHostPriorityList(reply.toList()));
    }
  });

  it('refuses a score that is not an integer, as the plain list does (when the entry is made)', () => {
    const reply = new PriorityReply(['n1']);
    assert.throws(() => reply.add(0, 2.5), /not an integer/);
    assert.throws(() => reply.add(0, Number.NaN), /not an integer/);
    assert.throws(() => hostEntry('"n1"', 2.5), /not an integer/);
    assert.throws(() => encodeHostPriorityList([{ Host: 'n1', Score: 2.5 }]), /not an integer/);
  });
});
