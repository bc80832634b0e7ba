/**
 * Editing parsed JSON by path (drop, rename, replace) and splicing raw text into a serialised body where
 * JSON.stringify cannot write it (1e400, duplicate keys, 100k-deep nesting, invalid UTF-8).
 */
export type JsonPath = ReadonlyArray<string | number>;
type Container = Record<string, unknown> | unknown[];

const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;

/** Every path to every value below the root (depth-first, parents before children). */
export function allPaths(root: unknown): JsonPath[] {
  const paths: JsonPath[] = [];
  const walk = (value: unknown, path: JsonPath): void => {
    if (!isContainer(value)) return;
    const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
    for (const key of keys) {
      const child = [...path, key];
      paths.push(child);
      walk((value as Record<string | number, unknown>)[key], child);
    }
  };
  walk(root, []);
  return paths;
}

/** The container holding the last key of `path`; with `create`, missing objects on the way are made. */
function parentOf(root: unknown, path: JsonPath, create = false): Container | undefined {
  let current: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (!isContainer(current)) return undefined;
    const holder = current as Record<string | number, unknown>;
    if (create && !Object.hasOwn(holder, key)) define(holder as Container, key, {});
    current = holder[key];
  }
  return isContainer(current) ? current : undefined;
}

/** Own-property writes only, so a `__proto__` key becomes data, as JSON.parse makes it. */
function define(container: Container, key: string | number, value: unknown): void {
  Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
}

export function replaceAt(root: unknown, path: JsonPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const parent = parentOf(root, path, true);
  if (parent) define(parent, path[path.length - 1]!, value);
  return root;
}

export function dropAt(root: unknown, path: JsonPath): unknown {
  const parent = parentOf(root, path);
  const key = path[path.length - 1]!;
  if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
  else if (parent) delete (parent as Record<string, unknown>)[key];
  return root;
}

export function renameAt(root: unknown, path: JsonPath, newName: string): unknown {
  const parent = parentOf(root, path);
  const key = path[path.length - 1]!;
  if (!parent || Array.isArray(parent)) return root;
  const value = parent[key as string];
  delete parent[key as string];
  define(parent, newName, value);
  return root;
}

export const HOLE = '\u0000hole\u0000';
const QUOTED_HOLE = JSON.stringify(HOLE);

/** Serialises `root` with the string HOLE at `path`, then puts `raw` where that string was. */
export function spliceRaw(root: unknown, path: JsonPath, raw: string): string {
  const text = JSON.stringify(replaceAt(structuredClone(root), path, HOLE));
  const at = text.indexOf(QUOTED_HOLE);
  return at < 0 ? text : text.slice(0, at) + raw + text.slice(at + QUOTED_HOLE.length);
}

/** The same with raw bytes (for invalid UTF-8). */
export function spliceBytes(root: unknown, path: JsonPath, raw: Buffer): Buffer {
  const text = JSON.stringify(replaceAt(structuredClone(root), path, HOLE));
  const at = text.indexOf(QUOTED_HOLE);
  if (at < 0) return Buffer.from(text);
  return Buffer.concat([Buffer.from(text.slice(0, at)), raw, Buffer.from(text.slice(at + QUOTED_HOLE.length))]);
}
