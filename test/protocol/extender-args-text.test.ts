/**
 * ExtenderArgs from the body text (protocol/extender-args-text.ts) must decode every body exactly as JSON.parse of
 * the whole body then decodeExtenderArgs does, errors included, whether or not its candidate list was remembered.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeExtenderArgs } from '../../src/protocol/decode.js';
import { ExtenderArgsReader } from '../../src/protocol/extender-args-text.js';

/** One reader for the whole file, as a server keeps one: calls remember what the calls before them sent. */
const reader = new ExtenderArgsReader();

type Outcome = { value: unknown } | { error: string };

function outcome(fn: () => unknown): Outcome {
  try {
    return { value: JSON.parse(JSON.stringify(fn())) };
  } catch (err) {
    return { error: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

const wholeBody = (text: string): Outcome => outcome(() => decodeExtenderArgs(JSON.parse(text)));
const fromText = (text: string): Outcome => outcome(() => reader.decode(text, JSON.parse));

const pod = (name: string) => ({ metadata: { name, namespace: 'ns', uid: `uid-${name}` }, spec: { containers: [{ name: 'c' }] } });
const body = (names: unknown, extra = '') => `{"Pod":${JSON.stringify(pod('p'))},"Nodes":null${extra},"NodeNames":${JSON.stringify(names)}}`;

describe('ExtenderArgs from the body text (a candidate list sent again is not parsed again)', () => {
  it('reuses a list sent three times in a row and answers as the whole-body path every time', () => {
    const names = ['n1', 'n2', 'n3'];
    const before = reader.reuses;
    for (let i = 0; i < 4; i++) {
      const text = `{"Pod":${JSON.stringify(pod(`p${i}`))},"Nodes":null,"NodeNames":${JSON.stringify(names)}}`;
      assert.deepEqual(fromText(text), wholeBody(text));
    }
    assert.equal(reader.reuses - before, 2, 'the first two calls parse the whole body (the second remembers the list)');
  });

  it('remembers a list repeated by the same verb, not one a prioritize repeats from its filter (rotating windows)', () => {
    const before = reader.reuses;
    for (let window = 0; window < 4; window++) {
      const text = body([`w${window}-a`, `w${window}-b`]);
      reader.decode(text, JSON.parse, 'filter');
      reader.decode(text, JSON.parse, 'prioritize');
      reader.decode(text, JSON.parse, 'prioritize');
    }
    assert.equal(reader.reuses - before, 0, 'no stream saw a list twice in a row before its third call');
    const same = body(['s-a', 's-b']);
    for (let i = 0; i < 3; i++) reader.decode(same, JSON.parse, 'filter');
    assert.equal(reader.reuses - before, 1);
    reader.decode(same, JSON.parse, 'prioritize');
    assert.equal(reader.reuses - before, 2, 'a remembered list serves every verb');
  });

  it('hands a filter retrying the last body\'s pod that body\'s Pod, and parses a pod one character apart', () => {
    const names = ['retry-a', 'retry-b', 'retry-c'];
    const text = (name: string) => `{"Pod":${JSON.stringify(pod(name))},"Nodes":null,"NodeNames":${JSON.stringify(names)}}`;
    for (let i = 0; i < 2; i++) reader.decode(text(`retry-warm-${i}`), JSON.parse, 'filter-retry');
    const first = reader.decode(text('retry'), JSON.parse, 'filter-retry');
    const again = reader.decode(text('retry'), JSON.parse, 'filter-retry');
    assert.equal(again.Pod, first.Pod, 'the same text before the list: the same Pod object');
    assert.deepEqual(outcome(() => again), wholeBody(text('retry')));
    const other = reader.decode(text('retrx'), JSON.parse, 'filter-retry');
    assert.notEqual(other.Pod, first.Pod);
    assert.deepEqual(outcome(() => other), wholeBody(text('retrx')));
    const disabled = new ExtenderArgsReader(false);
    assert.notEqual(disabled.decode(text('retry'), JSON.parse, 'filter-retry').Pod, disabled.decode(text('retry'), JSON.parse, 'filter-retry').Pod);
  });

  it('checks a repeated list against its body once per run of that list, not on every call', () => {
    const names = ['sp1', 'sp2'];
    // Another encoder's spacing: the tail is never the exact text, so the list is never remembered.
    const spaced = `{"Pod": ${JSON.stringify(pod('p'))}, "NodeNames": ${JSON.stringify(names)}}`;
    const stringify = JSON.stringify;
    let stringified = 0;
    JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
      if (Array.isArray(args[0])) stringified++;
      return stringify(...args);
    }) as typeof JSON.stringify;
    try {
      for (let i = 0; i < 5; i++) assert.deepEqual(reader.decode(spaced, JSON.parse, 'spacing').NodeNames, names);
    } finally {
      JSON.stringify = stringify;
    }
    assert.equal(stringified, 1);
  });

  it('hands out a remembered list frozen, so no caller can change what later calls get', () => {
    const names = ['f1', 'f2'];
    for (let i = 0; i < 3; i++) reader.decode(body(names), JSON.parse);
    const args = reader.decode(body(names), JSON.parse);
    assert.deepEqual(args.NodeNames, names);
    assert.throws(() => (args.NodeNames as string[]).push('x'), TypeError);
  });

  it('refuses a body whose text before a remembered list is not an object with members, as the whole-body path does', () => {
    const names = ['r1', 'r2'];
    for (let i = 0; i < 3; i++) reader.decode(body(names), JSON.parse);
    const tail = `,"NodeNames":${JSON.stringify(names)}}`;
    for (const head of ['{', '{"Pod":{"metadata":{"name":"p"}}}', '[', '{"Pod":', '{"Pod":null,', ' {"Pod":null} ']) {
      assert.deepEqual(fromText(head + tail), wholeBody(head + tail), head);
    }
  });

  it('leaves a repeated NodeNames key, in any spelling, to the whole-body path', () => {
    const names = ['d1', 'd2'];
    for (let i = 0; i < 3; i++) reader.decode(body(names), JSON.parse);
    for (const extra of [',"NodeNames":5', ',"nodenames":["other"]', ',"NODENAMES":null', ',"NodeNames":["x"]']) {
      const text = body(names, extra);
      assert.deepEqual(fromText(text), wholeBody(text), extra);
    }
  });

  it('any body, sent once or several times in a row, decodes as JSON.parse then decodeExtenderArgs does (property)', () => {
    const name = fc.oneof(fc.constantFrom('node-a', 'node-b', 'gke-pool-1-abc', 'ü-node', 'a"b', 'back\\slash', '\u2028', '<&>', ''), fc.string({ maxLength: 6 }));
    const names = fc.oneof({ arbitrary: fc.array(name, { maxLength: 5 }), weight: 4 }, fc.constant(null), fc.array(fc.oneof(name, fc.constant(null), fc.integer()), { maxLength: 3 }));
    const podValue = fc.oneof(fc.constant(pod('p')), fc.constant(null), fc.constant(7), fc.record({ metadata: fc.record({ name: fc.string({ maxLength: 4 }) }) }));
    const extra = fc.constantFrom('', ',"Nodes":null', ',"nodenames":["z"]', ',"NodeNames":[]', ',"x":{"NodeNames":["q"]}', ',"Nodes":{"items":[]}');
    const spacing = fc.constantFrom('', '', '', ' ', '\n');
    const broken = fc.integer({ min: 0, max: 4 }).map((n) => n === 0);
    const bodyText = fc.tuple(podValue, extra, names, spacing, broken).map(([p, more, list, space, broken]) => {
      const text = `{"Pod":${JSON.stringify(p)}${more},"NodeNames":${JSON.stringify(list)}}${space}`;
      return broken ? text.slice(0, Math.max(1, text.indexOf(',"NodeNames"'))) + text.slice(text.indexOf(',"NodeNames"') + 1) : text;
    });
    const before = reader.reuses;
    fc.assert(fc.property(fc.array(fc.tuple(bodyText, fc.integer({ min: 1, max: 3 })), { minLength: 1, maxLength: 6 }), (sends) => {
      for (const [text, times] of sends) {
        for (let i = 0; i < times; i++) assert.deepEqual(fromText(text), wholeBody(text), text);
      }
    }), { numRuns: 400 });
    assert.ok(reader.reuses - before > 30, `the remembered lists were used (${reader.reuses - before} times)`);
  });

  it('parses a body in two parts only where that is the whole body\'s object: nested, repeated or trailing NodeNames take the whole-body path', () => {
    const podText = JSON.stringify(pod('two'));
    const texts = [
      `{"Pod":${podText},"Nodes":null,"NodeNames":["a","b"]}`,
      `{"Pod":${podText},"Nodes":null,"NodeNames":["a","b"] }`,
      `{"Pod":${podText},"Nodes":null,"NodeNames":["a","b"]} `,
      `{"Pod":{"metadata":{"name":"n"},"x":{"y":1,"NodeNames":["in","pod"]}},"NodeNames":["a","b"]}`,
      `{"Pod":{"metadata":{"name":"n","NodeNames":["in","pod"]}},"NodeNames":["a"]}`,
      `{"Pod":${podText},"NodeNames":["a","b"],"Nodes":null}`,
      `{"Pod":${podText},"NodeNames":["a"],"NodeNames":["b"]}`,
      `{"Pod":${podText},"nodeNames":["x"],"NodeNames":["a","b"]}`,
      `{"Pod":${podText},"NodeNames":["a",1]}`,
      `{"Pod":${podText},"NodeNames":["a",]}`,
      `{"Pod":${podText},"NodeNames":["a"]]}`,
      `{"Pod":"a,\\"NodeNames\\":[","NodeNames":["a"]}`,
      `{"Pod":7,"NodeNames":["a"]}`,
      `{,"NodeNames":["a"]}`,
    ];
    for (const text of texts) assert.deepEqual(outcome(() => reader.decode(text, JSON.parse, 'two-parts')), wholeBody(text), text);
  });

  describe('a list expected next (a filter\'s passing nodes, for the prioritize that follows)', () => {
    const joined = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(',');
    /** As the filter route hands a reply's passing list over. */
    const expect = (names: readonly string[], namesOf: () => readonly string[] = () => names) => reader.expectList('prioritize', names.length, joined(names), namesOf);
    afterEach(() => reader.expectList('prioritize', 0, '', () => []));

    it('decodes a prioritize body ending with the filter\'s passing list from its pod alone, as the whole-body path does', () => {
      const passed = ['w-a', 'w-c', 'w-d'];
      expect(passed);
      const before = reader.reuses;
      for (let i = 0; i < 3; i++) {
        const text = `{"Pod":${JSON.stringify(pod(`next-${i}`))},"Nodes":null,"NodeNames":${JSON.stringify(passed)}}`;
        assert.deepEqual(outcome(() => reader.decode(text, JSON.parse, 'prioritize')), wholeBody(text));
      }
      assert.equal(reader.reuses - before, 3, 'the first prioritize already reuses the filter\'s list');
      const text = body(passed);
      reader.decode(text, JSON.parse, 'filter');
      assert.equal(reader.reuses - before, 3, 'only the stream it was handed to expects it');
      const told: string[] = [];
      reader.decode(body(passed), JSON.parse, 'prioritize', (list) => told.push(list));
      const repeated = ['rep-a', 'rep-b'];
      for (let i = 0; i < 3; i++) reader.decode(body(repeated), JSON.parse, 'prioritize', (list) => told.push(list));
      assert.deepEqual(told, ['filter_survivors', 'repeated'], 'told which list each reused body carried');
    });

    it('parses the whole body when the prioritize carries another list, or the expectation was cleared', () => {
      expect(['e-a', 'e-b']);
      const before = reader.reuses;
      for (const names of [['e-a'], ['e-b', 'e-a'], ['e-a', 'e-b', 'e-c']]) {
        const text = body(names);
        assert.deepEqual(outcome(() => reader.decode(text, JSON.parse, 'prioritize')), wholeBody(text));
      }
      expect(['only-one']);
      reader.decode(body(['e-a', 'e-b']), JSON.parse, 'prioritize');
      assert.equal(reader.reuses - before, 0);
    });

    it('makes the names only when a body carries the list, once, frozen, as a copy: the filter\'s own array stays the caller\'s', () => {
      const passed = ['c-a', 'c-b'];
      let made = 0;
      expect(passed, () => {
        made++;
        return passed;
      });
      reader.decode(body(['c-b', 'c-a']), JSON.parse, 'prioritize');
      assert.equal(made, 0, 'another list: the names were not asked for');
      const args = reader.decode(body(['c-a', 'c-b']), JSON.parse, 'prioritize');
      passed.push('changed-after');
      const again = reader.decode(body(['c-a', 'c-b']), JSON.parse, 'prioritize');
      assert.equal(made, 1);
      assert.deepEqual(args.NodeNames, ['c-a', 'c-b']);
      assert.equal(again.NodeNames, args.NodeNames);
      assert.throws(() => (args.NodeNames as string[]).push('x'), TypeError);
    });

    it('hands a prioritize the filter\'s own Pod when its text before the list is the filter\'s, and parses any other pod', () => {
      const filterText = `{"Pod":${JSON.stringify(pod('same'))},"Nodes":null,"NodeNames":["s-a","s-b","s-c"]}`;
      const filterArgs = reader.decode(filterText, JSON.parse, 'filter');
      const passed = ['s-a', 's-c'];
      reader.expectList('prioritize', passed.length, joined(passed), () => passed, filterArgs);
      const same = `{"Pod":${JSON.stringify(pod('same'))},"Nodes":null,"NodeNames":${JSON.stringify(passed)}}`;
      const args = reader.decode(same, JSON.parse, 'prioritize');
      assert.equal(args.Pod, filterArgs.Pod, 'the filter\'s Pod object, not a parse of the same text');
      assert.deepEqual(outcome(() => args), wholeBody(same));
      // Same length, one character apart: parsed.
      const other = same.replace('"same"', '"sane"');
      const otherArgs = reader.decode(other, JSON.parse, 'prioritize');
      assert.notEqual(otherArgs.Pod, filterArgs.Pod);
      assert.deepEqual(outcome(() => otherArgs), wholeBody(other));
      // Handed over for another call's args (not the last body decoded in two parts): nothing is reused.
      reader.decode(filterText.replace('"same"', '"late"'), JSON.parse, 'filter');
      reader.expectList('prioritize', passed.length, joined(passed), () => passed, filterArgs);
      assert.notEqual(reader.decode(same, JSON.parse, 'prioritize').Pod, filterArgs.Pod);
    });

    it('hands the Pod over from a filter whose list was remembered (every node a candidate, the same list each call)', () => {
      const candidates = ['all-a', 'all-b', 'all-c'];
      const filterText = (name: string) => `{"Pod":${JSON.stringify(pod(name))},"Nodes":null,"NodeNames":${JSON.stringify(candidates)}}`;
      for (let i = 0; i < 2; i++) reader.decode(filterText(`warm-${i}`), JSON.parse, 'filter-all');
      const before = reader.reuses;
      const filterArgs = reader.decode(filterText('all'), JSON.parse, 'filter-all');
      assert.equal(reader.reuses - before, 1, 'the filter itself was decoded with the remembered list');
      const passed = ['all-a', 'all-c'];
      reader.expectList('prioritize', passed.length, joined(passed), () => passed, filterArgs);
      const text = `{"Pod":${JSON.stringify(pod('all'))},"Nodes":null,"NodeNames":${JSON.stringify(passed)}}`;
      const args = reader.decode(text, JSON.parse, 'prioritize');
      assert.equal(args.Pod, filterArgs.Pod);
      assert.deepEqual(outcome(() => args), wholeBody(text));
    });

    it('any prioritize after any filter decodes as JSON.parse then decodeExtenderArgs does (property)', () => {
      const podValue = fc.oneof(fc.constant(pod('p')), fc.constant(pod('q')), fc.constant(null), fc.record({ metadata: fc.record({ name: fc.string({ maxLength: 3 }) }) }));
      const extra = fc.constantFrom('', ',"Nodes":null', ',"nodenames":["z"]', ',"x":{"NodeNames":["q"]}', ',"Nodes":{"items":[]}');
      const names = fc.array(fc.constantFrom('n-a', 'n-b', 'n-c', 'a"b'), { minLength: 2, maxLength: 4 });
      let reusedPods = 0;
      fc.assert(fc.property(podValue, extra, names, podValue, extra, fc.boolean(), (filterPod, filterExtra, candidates, otherPod, otherExtra, samePod) => {
        const filterText = `{"Pod":${JSON.stringify(filterPod)}${filterExtra},"NodeNames":${JSON.stringify(candidates)}}`;
        const filterOutcome = outcome(() => reader.decode(filterText, JSON.parse, 'filter'));
        assert.deepEqual(filterOutcome, wholeBody(filterText), filterText);
        let filterArgs;
        try {
          filterArgs = reader.decode(filterText, JSON.parse, 'filter-again');
        } catch {
          return;
        }
        const passed = candidates.slice(1);
        if (passed.length < 2) return;
        reader.expectList('prioritize', passed.length, joined(passed), () => passed, filterArgs);
        const [p, more] = samePod ? [filterPod, filterExtra] : [otherPod, otherExtra];
        const text = `{"Pod":${JSON.stringify(p)}${more},"NodeNames":${JSON.stringify(passed)}}`;
        const decoded = outcome(() => reader.decode(text, JSON.parse, 'prioritize'));
        assert.deepEqual(decoded, wholeBody(text), text);
        if (samePod && filterArgs.Pod !== null && reader.decode(text, JSON.parse, 'prioritize').Pod === filterArgs.Pod) reusedPods++;
      }), { numRuns: 300 });
      assert.ok(reusedPods > 20, `the filter's Pod was handed over (${reusedPods} times)`);
    });

    it('any body after any expected list decodes as JSON.parse then decodeExtenderArgs does (property)', () => {
      const name = fc.oneof(fc.constantFrom('node-a', 'node-b', 'ü-node', 'a"b', 'back\\slash', '\u2028', '<&>', ''), fc.string({ maxLength: 5 }));
      const list = fc.array(name, { minLength: 2, maxLength: 5 });
      const podValue = fc.oneof(fc.constant(pod('p')), fc.constant(null), fc.constant(3), fc.record({ metadata: fc.record({ name: fc.string({ maxLength: 4 }) }) }));
      const extra = fc.constantFrom('', ',"Nodes":null', ',"nodenames":["z"]', ',"NodeNames":[]', ',"x":{"NodeNames":["q"]}');
      const before = reader.reuses;
      fc.assert(fc.property(list, fc.array(fc.tuple(podValue, extra, fc.oneof(list, fc.constant(null))), { minLength: 1, maxLength: 4 }), fc.boolean(),
        (expected, sends, sameList) => {
          expect(expected);
          for (const [p, more, other] of sends) {
            const names = sameList || other === null ? expected : other;
            const text = `{"Pod":${JSON.stringify(p)}${more},"NodeNames":${JSON.stringify(names)}}`;
            assert.deepEqual(outcome(() => reader.decode(text, JSON.parse, 'prioritize')), wholeBody(text), text);
          }
        }), { numRuns: 300 });
      assert.ok(reader.reuses - before > 50, `the expected lists were used (${reader.reuses - before} times)`);
    });
  });
});

describe('a reader that remembers nothing (the cycle cache disabled)', () => {
  it('decodes every body whole, sent again or expected, and answers as the remembering reader does', () => {
    const forgetful = new ExtenderArgsReader(false);
    const names = ['f-a', 'f-b', 'f-c'];
    const text = body(names);
    for (let i = 0; i < 4; i++) assert.deepEqual(outcome(() => forgetful.decode(text, JSON.parse, 'filter')), wholeBody(text));
    forgetful.expectList('prioritize', names.length, JSON.stringify(names).slice(1, -1), () => names);
    assert.deepEqual(outcome(() => forgetful.decode(text, JSON.parse, 'prioritize')), wholeBody(text));
    assert.equal(forgetful.reuses, 0);
  });
});
