/**
 * The project's lint configuration (eslint.config.js) as `npm run lint` applies it: code placed in each area is linted
 * with that area's rules (module state in the request path, length and complexity in product code, floating promises
 * everywhere, non-null assertions in product code), and the bulk suppressions hold existing non-null assertions only.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** Breaks one rule of each kind; linted in place of an existing file so that the type-aware rules can read its types. */
const OFFENDING_CODE = `
export async function later(): Promise<void> {}
later();
export const first = [1][0]!;
let calls = 0;
export function count(): number {
  calls += 1;
  return calls;
}
export function branchy(a: number): number {
  ${Array.from({ length: 16 }, (_, i) => `if (a === ${i}) return ${i};`).join('\n  ')}
  return -1;
}
export function long(): number {
  let total = 0;
  ${Array.from({ length: 40 }, (_, i) => `total += ${i};`).join('\n  ')}
  return total;
}
`;

/** The rules that report on the code in place of `hostFile`, and those of them that fail the lint. */
async function rulesReported(eslint: ESLint, hostFile: string): Promise<{ rules: string[]; failing: string[] }> {
  const [result] = await eslint.lintText(OFFENDING_CODE, { filePath: join(REPO_ROOT, hostFile) });
  assert.ok(result);
  const fatal = result.messages.find((m) => m.fatal);
  assert.equal(fatal, undefined, fatal?.message);
  const names = (severity: number) =>
    [...new Set(result.messages.filter((m) => m.severity >= severity).map((m) => m.ruleId ?? ''))].sort();
  return { rules: names(1), failing: names(2) };
}

describe('lint configuration', function () {
  this.timeout(120_000);
  const eslint = new ESLint({ cwd: REPO_ROOT });

  it('holds request-path code to every rule, and fails on module state there', async () => {
    const { rules, failing } = await rulesReported(eslint, 'src/protocol/json-shape.ts');
    assert.deepEqual(rules, [
      '@typescript-eslint/no-floating-promises',
      '@typescript-eslint/no-non-null-assertion',
      'complexity',
      'kube-ledger/no-module-state',
      'max-lines-per-function',
    ]);
    assert.ok(failing.includes('kube-ledger/no-module-state'));
  });

  it('fails other product code on every rule but module state', async () => {
    const { rules, failing } = await rulesReported(eslint, 'src/cli/text-table.ts');
    assert.deepEqual(failing, [
      '@typescript-eslint/no-floating-promises',
      '@typescript-eslint/no-non-null-assertion',
      'complexity',
      'max-lines-per-function',
    ]);
    assert.deepEqual(rules, failing);
  });

  it('holds tests to floating promises only (a long describe or a `!` on a lookup is how a test reads)', async () => {
    const { rules, failing } = await rulesReported(eslint, 'test/cli/ledger-text.test.ts');
    assert.deepEqual(rules, ['@typescript-eslint/no-floating-promises']);
    assert.deepEqual(failing, rules);
  });

  it('suppresses existing non-null assertions and nothing else', () => {
    const suppressions = JSON.parse(readFileSync(join(REPO_ROOT, 'eslint-suppressions.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    const rules = new Set(Object.values(suppressions).flatMap((byRule) => Object.keys(byRule)));
    assert.deepEqual([...rules], ['@typescript-eslint/no-non-null-assertion']);
  });
});
