/**
 * A small kustomize renderer for the subset of features deploy/ uses, so the many tests that read the manifests do
 * not each run a binary. It refuses any kustomization key it does not implement, so a new feature in deploy/ fails
 * loudly instead of being ignored, and test/deploy/kubectl-kustomize.test.ts proves that it renders every
 * kustomization exactly as `kubectl kustomize` does.
 * Differences from kustomize, on purpose: no name hash suffix on generated ConfigMaps (tests compare names without it).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

interface PatchTarget { group?: string; version?: string; kind?: string; name?: string }
interface JsonPatchOp { op: 'add' | 'replace' | 'remove'; path: string; value?: unknown }
interface ConfigMapGenerator { name: string; namespace?: string; behavior?: 'create' | 'replace'; files: string[] }
interface Kustomization {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  resources?: string[];
  configMapGenerator?: ConfigMapGenerator[];
  patches?: { path: string; target: PatchTarget }[];
  images?: { name: string; newName?: string; newTag?: string }[];
}

const SUPPORTED_KEYS = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'configMapGenerator', 'patches', 'images']);
const CLUSTER_SCOPED_KINDS = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'ClusterIssuer', 'PriorityClass']);

/** Every document of a YAML file, throwing on the first syntax error. */
export function readYamlDocuments(path: string): unknown[] {
  const documents = parseAllDocuments(readFileSync(path, 'utf8'));
  return documents.map((document) => {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors[0]?.message}`);
    return document.toJS() as unknown;
  }).filter((value) => value !== null && value !== undefined);
}

export function readKustomization(dir: string): Kustomization {
  const path = join(dir, 'kustomization.yaml');
  const [document] = readYamlDocuments(path);
  const kustomization = document as Kustomization;
  for (const key of Object.keys(kustomization)) {
    if (!SUPPORTED_KEYS.has(key)) throw new Error(`${path}: key ${key} is not supported by the test renderer`);
  }
  return kustomization;
}

/** Every file a kustomization names (resources that are files, patches, generator sources), as absolute paths. */
export function referencedFiles(dir: string): { path: string; role: 'resource' | 'patch' | 'configMapSource' }[] {
  const kustomization = readKustomization(dir);
  const files: { path: string; role: 'resource' | 'patch' | 'configMapSource' }[] = [];
  for (const entry of kustomization.resources ?? []) files.push({ path: resolve(dir, entry), role: 'resource' });
  for (const patch of kustomization.patches ?? []) files.push({ path: resolve(dir, patch.path), role: 'patch' });
  for (const generator of kustomization.configMapGenerator ?? []) {
    for (const source of generator.files) files.push({ path: resolve(dir, sourcePath(source)), role: 'configMapSource' });
  }
  return files;
}

export function render(dir: string): KubeObject[] {
  const kustomization = readKustomization(dir);
  let objects: KubeObject[] = [];
  for (const entry of kustomization.resources ?? []) objects.push(...renderResource(resolve(dir, entry)));
  for (const generator of kustomization.configMapGenerator ?? []) objects = applyGenerator(dir, generator, objects);
  if (kustomization.namespace) setNamespace(objects, kustomization.namespace);
  for (const patch of kustomization.patches ?? []) applyPatchFile(resolve(dir, patch.path), patch.target, objects);
  for (const image of kustomization.images ?? []) setImage(objects, image);
  return objects;
}

function renderResource(path: string): KubeObject[] {
  if (!existsSync(path)) throw new Error(`resource ${path} does not exist`);
  if (statSync(path).isDirectory()) return render(path);
  return (readYamlDocuments(path) as KubeObject[]).flatMap((object) => (isList(object) ? object.items : [object]));
}

/** A `v1 List`: kustomize (and kubectl) take its items as the objects. */
function isList(object: KubeObject): object is KubeObject & { items: KubeObject[] } {
  return object.apiVersion === 'v1' && object.kind === 'List';
}

function sourcePath(source: string): string {
  const equals = source.indexOf('=');
  return equals === -1 ? source : source.slice(equals + 1);
}

function sourceKey(source: string): string {
  const equals = source.indexOf('=');
  return equals === -1 ? (source.split('/').pop() ?? source) : source.slice(0, equals);
}

function applyGenerator(dir: string, generator: ConfigMapGenerator, objects: KubeObject[]): KubeObject[] {
  const data: Record<string, string> = {};
  for (const source of generator.files) data[sourceKey(source)] = readFileSync(resolve(dir, sourcePath(source)), 'utf8');
  const configMap: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: generator.name, ...(generator.namespace ? { namespace: generator.namespace } : {}) },
    data,
  };
  const isSame = (object: KubeObject) => object.kind === 'ConfigMap' && object.metadata.name === generator.name;
  const existing = objects.some(isSame);
  if (generator.behavior === 'replace') {
    if (!existing) throw new Error(`${dir}: configMapGenerator ${generator.name} replaces nothing`);
    return objects.map((object) => (isSame(object) ? { ...configMap, metadata: { ...object.metadata } } : object));
  }
  if (existing) throw new Error(`${dir}: configMapGenerator ${generator.name} already exists`);
  return [...objects, configMap];
}

function setNamespace(objects: KubeObject[], namespace: string): void {
  for (const object of objects) {
    if (!CLUSTER_SCOPED_KINDS.has(object.kind)) object.metadata.namespace = namespace;
  }
}

function matchesTarget(object: KubeObject, target: PatchTarget): boolean {
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  return (target.group === undefined || target.group === group)
    && (target.version === undefined || target.version === version)
    && (target.kind === undefined || target.kind === object.kind)
    && (target.name === undefined || target.name === object.metadata.name);
}

function applyPatchFile(path: string, target: PatchTarget, objects: KubeObject[]): void {
  const [operations] = readYamlDocuments(path) as JsonPatchOp[][];
  const targets = objects.filter((object) => matchesTarget(object, target));
  if (targets.length === 0) throw new Error(`${path}: patch target ${JSON.stringify(target)} matches nothing`);
  for (const object of targets) for (const operation of operations ?? []) applyJsonPatch(object, operation, path);
}

/** RFC 6902 add / replace / remove on one object, in place. */
export function applyJsonPatch(document: unknown, operation: JsonPatchOp, where = 'patch'): void {
  const tokens = operation.path.split('/').slice(1).map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = tokens.pop();
  if (last === undefined) throw new Error(`${where}: empty path`);
  let parent: unknown = document;
  for (const token of tokens) {
    parent = (parent as Record<string, unknown>)?.[token];
    if (parent === undefined || parent === null) throw new Error(`${where}: ${operation.path} does not exist`);
  }
  if (Array.isArray(parent)) return patchArray(parent, last, operation, where);
  const record = parent as Record<string, unknown>;
  if (operation.op !== 'add' && !(last in record)) throw new Error(`${where}: ${operation.path} does not exist`);
  if (operation.op === 'remove') delete record[last];
  else record[last] = structuredClone(operation.value);
}

function patchArray(array: unknown[], token: string, operation: JsonPatchOp, where: string): void {
  const index = token === '-' ? array.length : Number(token);
  if (!Number.isInteger(index) || index < 0 || index > array.length) throw new Error(`${where}: bad index ${token}`);
  if (operation.op === 'add') array.splice(index, 0, structuredClone(operation.value));
  else if (index >= array.length) throw new Error(`${where}: ${operation.path} does not exist`);
  else if (operation.op === 'remove') array.splice(index, 1);
  else array[index] = structuredClone(operation.value);
}

function setImage(objects: KubeObject[], image: { name: string; newName?: string; newTag?: string }): void {
  for (const container of allContainers(objects)) {
    const [name, tag] = splitImage(String(container.image));
    if (name !== image.name) continue;
    container.image = `${image.newName ?? name}:${image.newTag ?? tag}`;
  }
}

function splitImage(image: string): [string, string] {
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/') ? [image.slice(0, colon), image.slice(colon + 1)] : [image, 'latest'];
}

export function allContainers(objects: KubeObject[]): Record<string, unknown>[] {
  const containers: Record<string, unknown>[] = [];
  for (const object of objects) {
    const podSpec = (object as { spec?: { template?: { spec?: { containers?: []; initContainers?: [] } } } }).spec?.template?.spec;
    if (podSpec) containers.push(...(podSpec.containers ?? []), ...(podSpec.initContainers ?? []));
  }
  return containers;
}

/** Directories under deploy/ that hold a kustomization.yaml. */
export const DEPLOY_DIR = resolve(dirname(new URL(import.meta.url).pathname), '../../deploy');
export const KUSTOMIZATIONS = ['base', 'nominator', 'monitoring', 'overlays/dev', 'overlays/dev-scheduler', 'overlays/production', 'scheduler'];
