/**
 * The configuration's defaults as values, built from the schema (the only place a default is written). Modules that
 * take a configured value read its default here instead of repeating the number; `CONFIG_DEFAULTS` is frozen so
 * nobody can change a default for everyone at run time.
 */
import { FIELDS, type ExtenderConfig } from './schema.js';

type Tree = Record<string, unknown>;

/** Sets `value` at a dotted path, creating the sections on the way. */
export function setAtPath(tree: Tree, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = tree;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {};
    node = node[part] as Tree;
  }
  node[parts[parts.length - 1]!] = value;
}

/** A fresh, mutable configuration holding every default. */
export function defaultConfig(): ExtenderConfig {
  const tree: Tree = {};
  for (const field of FIELDS) setAtPath(tree, field.path, structuredClone(field.default));
  return tree as unknown as ExtenderConfig;
}

type DeepReadonly<T> = T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value as DeepReadonly<T>;
}

export const CONFIG_DEFAULTS: DeepReadonly<ExtenderConfig> = deepFreeze(defaultConfig());
