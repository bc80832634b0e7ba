/**
 * Which configuration keys the production code reads, found by the TypeScript checker rather than by text search:
 * every property access (and destructuring) in src/ outside src/config/ is resolved to its declaration, and the
 * declarations inside `ExtenderConfig` are mapped back to their dotted key path. A read through an alias
 * (`const d = config.freshness.directRead; d.burst`) or a parameter typed `ExtenderConfig['server']` resolves to the
 * same declaration, so renaming a variable cannot hide a read, and a leaf name shared with other objects (`enabled`,
 * `port`) cannot fake one. Writes (the left side of an assignment) do not count.
 */
import { readdirSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SCHEMA_FILE = join(ROOT, 'src', 'config', 'schema.ts');
const CONFIG_DIR = join(ROOT, 'src', 'config') + sep;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every property declaration of `ExtenderConfig` (nested type literals included) → its dotted path. */
function configDeclarations(schema: ts.SourceFile): Map<ts.Node, string> {
  const paths = new Map<ts.Node, string>();
  const visitMembers = (members: ts.NodeArray<ts.TypeElement>, prefix: string): void => {
    for (const member of members) {
      if (!ts.isPropertySignature(member) || !member.name) continue;
      const path = prefix + member.name.getText(schema);
      paths.set(member, path);
      if (member.type && ts.isTypeLiteralNode(member.type)) visitMembers(member.type.members, `${path}.`);
    }
  };
  for (const statement of schema.statements) {
    if (ts.isInterfaceDeclaration(statement) && statement.name.text === 'ExtenderConfig') visitMembers(statement.members, '');
  }
  if (paths.size === 0) throw new Error('ExtenderConfig not found in src/config/schema.ts');
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
  const all = readers ? [SCHEMA_FILE, ...readers] : sourceFiles(join(ROOT, 'src'));
  const searched = new Set(readers ?? all.filter((f) => !f.startsWith(CONFIG_DIR)));
  const program = ts.createProgram(all, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    // Only src/ itself: library types (client-node, node) do not change which ExtenderConfig property a read resolves
    // to, and leaving them out keeps this a few seconds instead of a full type check.
    noResolve: true,
    noLib: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const schema = program.getSourceFile(SCHEMA_FILE);
  if (!schema) throw new Error('src/config/schema.ts is not part of the program');
  const declared = configDeclarations(schema);
  const reads = new Map<string, Set<string>>();
  const record = (symbol: ts.Symbol | undefined, file: string): void => {
    for (const declaration of symbol?.declarations ?? []) {
      const path = declared.get(declaration);
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
