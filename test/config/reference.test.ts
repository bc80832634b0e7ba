/**
 * config/extender.yaml and the tables of docs/configuration.md are what the schema renders (regenerate with
 * `npm run config:generate`), and, read back, the YAML holds exactly the schema's keys at their defaults.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { defaultConfig, loadConfig } from '../../src/config/load-config.js';
import { FLAG_TO_KEY } from '../../src/config/cli.js';
import { REFERENCE_DOCUMENT, renderExtenderYaml, renderReferenceTable, withReferenceTable, YAML_REMARKS } from '../../src/config/reference.js';
import { DEPRECATED_FIELDS, FIELDS } from '../../src/config/schema.js';

const REGENERATE = 'run `npm run config:generate`';

/** Dotted paths of the leaves of a parsed document; a schema key whose value is a mapping (weights) is one leaf. */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || FIELDS.some((f) => f.path === prefix)) return [prefix];
  return Object.entries(value).flatMap(([key, child]) => leafPaths(child, prefix ? `${prefix}.${key}` : key));
}

function valueAt(tree: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], tree);
}

describe('configuration reference generated from the schema', () => {
  const shipped = readFileSync('config/extender.yaml', 'utf8');

  it('config/extender.yaml is exactly what the schema renders', () => {
    assert.equal(shipped, renderExtenderYaml(), REGENERATE);
  });

  it('config/extender.yaml holds every schema key, no other, each at its default', () => {
    const doc = parse(shipped) as unknown;
    assert.deepEqual(leafPaths(doc).sort(), FIELDS.map((f) => f.path).sort());
    for (const field of FIELDS) assert.deepEqual(valueAt(doc, field.path), field.default, field.path);
    assert.deepEqual(loadConfig({ file: 'config/extender.yaml' }), defaultConfig());
  });

  it('a key added to the schema without regenerating is caught', () => {
    const withExtra = parse(renderExtenderYaml()) as Record<string, Record<string, unknown>>;
    delete withExtra['logging']!['level'];
    assert.notDeepEqual(leafPaths(withExtra).sort(), FIELDS.map((f) => f.path).sort());
  });

  it('the tables of docs/configuration.md are what the schema renders', () => {
    const document = readFileSync(REFERENCE_DOCUMENT, 'utf8');
    assert.equal(document, withReferenceTable(document), REGENERATE);
    for (const field of [...FIELDS, ...DEPRECATED_FIELDS]) assert.ok(renderReferenceTable().includes(`\`${field.path}\``), field.path);
  });

  it('every flag is listed with the key it sets, and every such key is in the schema', () => {
    const table = renderReferenceTable();
    for (const [flag, key] of Object.entries(FLAG_TO_KEY)) {
      assert.ok(table.includes(`| \`--${flag}\` | \`${key}\` |`), `--${flag}`);
      assert.ok(FIELDS.some((f) => f.path === key), `--${flag} sets ${key}, which is not a schema key`);
    }
  });

  it('every YAML remark belongs to a key or section of the schema', () => {
    const known = new Set(FIELDS.flatMap((f) => f.path.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))));
    for (const path of Object.keys(YAML_REMARKS)) assert.ok(known.has(path), `remark for unknown ${path}`);
  });

  it('a deprecated key is neither in the shipped file nor a schema key', () => {
    for (const field of DEPRECATED_FIELDS) {
      assert.ok(!shipped.includes(field.path.split('.').pop()!), field.path);
      assert.ok(!FIELDS.some((f) => f.path === field.path), field.path);
    }
  });
});
