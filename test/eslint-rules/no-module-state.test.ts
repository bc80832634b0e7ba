/**
 * The lint rule that keeps module-level mutable state out of `protocol/`, `scheduling/`, `ledger/` and `http/`:
 * what it reports (top-level let/var, mutable containers, objects the module writes to, mutable static fields) and
 * what it accepts (read-only tables, frozen objects, `as const`, values only read), through ESLint's RuleTester.
 */
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import noModuleState from '../../eslint-rules/no-module-state.js';

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, sourceType: 'module' } });

const STATE_CLASSES = [{ stateClasses: ['ClearingMemo'] }];

tester.run('no-module-state', noModuleState, {
  valid: [
    { name: 'a constant primitive', code: 'const LIMIT = 4096;' },
    { name: 'let inside a function', code: 'export function f() { let count = 0; count += 1; return count; }' },
    { name: 'a container built inside a function', code: 'export function f() { const seen = new Set(); seen.add(1); return seen; }' },
    { name: 'a ReadonlyMap table', code: "const SUFFIXES: ReadonlyMap<string, number> = new Map([['Ki', 1024]]);" },
    { name: 'a ReadonlySet table', code: "export const PROBES: ReadonlySet<string> = new Set(['/healthz']);" },
    { name: 'a readonly array', code: "const NAMES: readonly string[] = ['cpu', 'memory'];" },
    { name: 'a Readonly<Record> table', code: "const WORDING: Readonly<Record<string, string>> = { a: 'b' };" },
    { name: 'a frozen object', code: 'const DEFAULTS = Object.freeze({ enabled: true });' },
    { name: 'an as-const list', code: "export const STRATEGIES = ['LeastAllocated', 'MostAllocated'] as const;" },
    { name: 'an object literal only read', code: "const LIMITS = { maxDepth: 32 }; export const depth = () => LIMITS.maxDepth;" },
    { name: 'an array literal only read', code: "const ORDER = ['a', 'b']; export const first = () => ORDER[0] ?? ORDER.join(',');" },
    { name: 'an empty typed array', code: 'const NO_USE = new Float64Array(0);' },
    { name: 'a stateless instance', code: 'const encoder = new TextEncoder(); export const bytes = (s: string) => encoder.encode(s);' },
    { name: 'a value copied, not written', code: "const BASE = { a: 1 }; export const copy = () => ({ ...BASE, b: 2 });" },
    { name: 'a local shadowing a module name', code: 'const table = { a: 1 }; export function f() { const table = { b: 2 }; table.b = 3; return table; }' },
    { name: 'a static readonly primitive', code: 'class Codec { static readonly VERSION = 1; }' },
    { name: 'a static readonly table', code: "class Codec { static readonly NAMES: ReadonlySet<string> = new Set(['a']); }" },
    { name: 'a memo class outside the configured list', code: 'const memo = new ClearingMemo(16);' },
  ],
  invalid: [
    { name: 'a top-level let', code: 'let last: string | undefined;', errors: [{ messageId: 'variable', data: { kind: 'let', name: 'last' } }] },
    { name: 'an exported let', code: 'export let counter = 0;', errors: [{ messageId: 'variable' }] },
    { name: 'a top-level var', code: 'var hits = 0;', errors: [{ messageId: 'variable', data: { kind: 'var', name: 'hits' } }] },
    { name: 'a destructured let', code: 'let { a } = { a: 1 };', errors: [{ messageId: 'variable', data: { kind: 'let', name: '{ a }' } }] },
    { name: 'a Map', code: 'const byName = new Map<string, number>();', errors: [{ messageId: 'container', data: { name: 'byName', type: 'Map' } }] },
    { name: 'a Set', code: 'export const seen = new Set<string>();', errors: [{ messageId: 'container', data: { name: 'seen', type: 'Set' } }] },
    { name: 'a WeakMap', code: 'const shapes = new WeakMap<object, number>();', errors: [{ messageId: 'container', data: { name: 'shapes', type: 'WeakMap' } }] },
    { name: 'a new Array', code: 'const rows = new Array<number>(8);', errors: [{ messageId: 'container', data: { name: 'rows', type: 'Array' } }] },
    { name: 'a typed array with room', code: 'const scratch = new Float64Array(64);', errors: [{ messageId: 'container', data: { name: 'scratch', type: 'Float64Array' } }] },
    { name: 'a Map behind a cast', code: 'const byName = new Map() as Map<string, number>;', errors: [{ messageId: 'container' }] },
    {
      name: 'a configured memo class',
      code: 'const parsed = new ClearingMemo<string, bigint>(4096);',
      options: STATE_CLASSES,
      errors: [{ messageId: 'container', data: { name: 'parsed', type: 'ClearingMemo' } }],
    },
    { name: 'an array pushed to', code: 'const cache: bigint[] = []; export function f() { cache.push(1n); }', errors: [{ messageId: 'mutated', data: { name: 'cache' } }] },
    { name: 'an object property assigned', code: 'const last = { value: 0 }; export function f(v: number) { last.value = v; }', errors: [{ messageId: 'mutated' }] },
    { name: 'an element assigned by index', code: 'const slots: number[] = []; export function f(i: number) { slots[i] = 1; }', errors: [{ messageId: 'mutated' }] },
    { name: 'a nested property assigned', code: 'const state = { inner: { n: 0 } }; export function f() { state.inner.n = 1; }', errors: [{ messageId: 'mutated' }] },
    { name: 'a property incremented', code: 'const stats = { calls: 0 }; export function f() { stats.calls++; }', errors: [{ messageId: 'mutated' }] },
    { name: 'a property deleted', code: "const table: Record<string, number> = { a: 1 }; export function f() { delete table['a']; }", errors: [{ messageId: 'mutated' }] },
    { name: 'an Object.assign target', code: 'const merged = {}; export function f(o: object) { Object.assign(merged, o); }', errors: [{ messageId: 'mutated' }] },
    {
      name: 'a read-only table written through a cast',
      code: 'const TABLE: ReadonlyMap<string, number> = new Map(); export function f() { (TABLE as Map<string, number>).set("a", 1); }',
      errors: [{ messageId: 'mutated', data: { name: 'TABLE' } }],
    },
    { name: 'an instance written to', code: 'const memo = new Memo(); export function f() { memo.clear(); }', errors: [{ messageId: 'mutated', data: { name: 'memo' } }] },
    { name: 'a mutable static field', code: 'class Cache { static last = 0; }', errors: [{ messageId: 'staticField', data: { name: 'last' } }] },
    { name: 'a static readonly Map', code: 'class Cache { static readonly byName = new Map(); }', errors: [{ messageId: 'staticField', data: { name: 'byName' } }] },
  ],
});
