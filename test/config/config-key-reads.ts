/**
 * Which configuration keys the production code reads, found by the TypeScript checker rather than by text search:
 * every property access (and destructuring) in src/ outside src/config/ is resolved to its property symbol, and the
 * properties of `ExtenderConfig` (derived from the schema table) are mapped back to their dotted key path. A read through an alias
 * (`const d = config.freshness.directRead; d.burst`) or a parameter typed `ExtenderConfig['server']` resolves to the
 * same declaration, so renaming a variable cannot hide a read, and a leaf name shared with other objects (`enabled`,
 * `port`) cannot fake one. Writes (the left side of an assignment) do not count.
 */
import { readdirSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SCHEMA_FILE = join(ROOT, 'src', 'config', 'schema.ts');
/** The schema and what its types are made of (compiled without resolving imports, so each is listed). */
const SCHEMA_SOURCES = [SCHEMA_FILE, join(ROOT, 'src', 'config', 'label-selector-text.ts'), join(ROOT, 'src', 'scheduling', 'score-strategies.ts')];
const CONFIG_DIR = join(ROOT, 'src', 'config') + sep;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Every property of `ExtenderConfig` (a type derived from the schema table: one type per section) → its dotted path,
 * found by walking the type as the checker resolves it.
 */
function configProperties(checker: ts.TypeChecker, schema: ts.SourceFile): Map<ts.Symbol, string> {
  const moduleSymbol = checker.getSymbolAtLocation(schema);
  const alias = moduleSymbol ? checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'ExtenderConfig') : undefined;
  if (!alias) throw new Error('ExtenderConfig not exported by src/config/schema.ts');
  const paths = new Map<ts.Symbol, string>();
  const walk = (type: ts.Type, prefix: string): void => {
    for (const property of checker.getPropertiesOfType(type)) {
      const path = prefix + property.name;
      paths.set(property, path);
      const propertyType = checker.getTypeOfSymbol(property);
      // Sections are object types whose keys the schema lists; a leaf's value (weights, lists) is not walked.
      const section = propertyType.getProperties().length > 0 && !checker.isArrayType(propertyType) && propertyType.getStringIndexType() === undefined;
      if (section && (propertyType.flags & ts.TypeFlags.Object) !== 0) walk(propertyType, `${path}.`);
    }
  };
  walk(checker.getDeclaredTypeOfSymbol(alias), '');
  if (paths.size === 0) throw new Error('ExtenderConfig has no properties');
  return paths;
}

function isWrite(access: ts.Node): boolean {
  const parent = access.parent;
  return ts.isBinaryExpression(parent) && parent.left === access && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;
}

/**
 * Key path → the files (relative to the repository) that read it. `readers` are the files searched (default: every
 * file of src/ outside src/config/, whose loader handles keys generically by path).
 */
export function configKeyReads(readers?: readonly string[]): Map<string, Set<string>> {
  // Without `readers`, every file of src/ is compiled (so `loadConfig()`'s result is typed where main.ts reads it) and
  // all but src/config/ searched; given `readers` (self-contained files), only they and the schema are compiled.
  const all = readers ? [...SCHEMA_SOURCES, ...readers] : sourceFiles(join(ROOT, 'src'));
  const searched = new Set(readers ?? all.filter((f) => !f.startsWith(CONFIG_DIR)));
  const program = ts.createProgram(all, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    // Only src/ itself and the ECMAScript library (the derived config type is made of arrays and mapped types):
    // package types (client-node, node) do not change which ExtenderConfig property a read resolves to, and leaving
    // them out keeps this a few seconds instead of a full type check.
    noResolve: true,
    lib: ['lib.es2022.d.ts'],
    types: [],
  });
  const checker = program.getTypeChecker();
  const schema = program.getSourceFile(SCHEMA_FILE);
  if (!schema) throw new Error('src/config/schema.ts is not part of the program');
  const declared = configProperties(checker, schema);
  const reads = new Map<string, Set<string>>();
  const record = (symbol: ts.Symbol | undefined, file: string): void => {
    // A read through a mapped type (Readonly, Pick, the frozen defaults) or a union resolves to the section's own property.
    for (const root of symbol ? checker.getRootSymbols(symbol) : []) {
      const path = declared.get(root);
      if (path === undefined) continue;
      let readers = reads.get(path);
      if (!readers) reads.set(path, (readers = new Set()));
      readers.add(file);
    }
  };
  for (const source of program.getSourceFiles()) {
    if (!searched.has(resolve(source.fileName))) continue;
    const file = relative(ROOT, source.fileName);
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && !isWrite(node)) record(checker.getSymbolAtLocation(node.name), file);
      if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const name = node.propertyName ?? node.name;
        if (ts.isIdentifier(name)) record(checker.getTypeAtLocation(node.parent).getProperty(name.text), file);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return reads;
}
