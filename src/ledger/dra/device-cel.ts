/**
 * DeviceClass and request selectors are CEL (resource.k8s.io/v1), evaluated here the way the DRA allocator does, in
 * its environment: `device.driver`, `device.attributes["<domain>"].<name>` (bool, int, string, or semver for version
 * attributes), `device.capacity["<domain>"].<name>` as Kubernetes quantities, `device.allowMultipleAllocations`, and
 * the Kubernetes CEL extensions selectors use: `quantity()`/`isQuantity()` with compareTo, isGreaterThan, isLessThan,
 * sign, isInteger, asInteger, asApproximateFloat; `semver()`/`isSemver()` with major, minor, patch, compareTo,
 * isGreaterThan, isLessThan.
 *
 * Evaluated with @marcbachmann/cel-js (zero dependencies, custom types as plain classes). Cost is bounded statically:
 * an expression over 10 KiB, 1000 AST nodes or depth 32 is refused at compile time (a device has at most 32
 * attributes and capacities, so evaluation stays small); compiled programs are cached by expression text. An expression
 * that does not compile or fails on a device yields `error`, which callers treat as "may match" (conservative).
 */
import { Environment } from '@marcbachmann/cel-js';
import { LRUCache } from 'lru-cache';
import semver from 'semver';
import { compareQuantities, parseQuantity, toScaledCeil, type Quantity } from '../quantity.js';
import type { DeviceAttributeValue, DeviceCapacityValue } from '../objects.js';

export const MAX_EXPRESSION_LENGTH = 10 * 1024;
const NANO = 1_000_000_000n;
const LIMITS = { maxAstNodes: 1000, maxDepth: 32, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 };

/** A Kubernetes quantity as CEL sees it (k8s.io/apiserver/pkg/cel/library/quantity.go). */
export class CelQuantity {
  constructor(readonly q: Quantity) {}
}

/** A semantic version as CEL sees it (k8s.io/apiserver/pkg/cel/library/semverlib.go). */
export class CelSemver {
  constructor(readonly v: semver.SemVer) {}
}

/** What a selector reads from one device (attribute and capacity names fully qualified: `<domain>/<name>`). */
export interface CelDeviceInput {
  driver: string;
  attributes: Readonly<Record<string, DeviceAttributeValue>>;
  capacity: Readonly<Record<string, DeviceCapacityValue>>;
  allowMultipleAllocations: boolean;
}

export type SelectorOutcome = { matches: boolean } | { error: string };

type Program = (context: Record<string, unknown>) => unknown;

function quantityOrThrow(text: string): CelQuantity {
  return new CelQuantity(parseQuantity(text));
}

function semverOrThrow(text: string): CelSemver {
  const parsed = semver.parse(text);
  if (!parsed) throw new Error(`invalid semver ${JSON.stringify(text)}`);
  return new CelSemver(parsed);
}

function method<T>(env: Environment, receiverType: string, name: string, returnType: string, params: string[], handler: (...args: never[]) => T): void {
  env.registerFunction({ name, receiverType, returnType, params: params.map((type, i) => ({ name: `a${i}`, type })), handler: handler as (...args: unknown[]) => T });
}

function buildEnvironment(): Environment {
  const env = new Environment({ limits: LIMITS })
    .registerType('Quantity', CelQuantity)
    .registerType('Semver', CelSemver)
    .registerVariable('device', 'map')
    .registerFunction('quantity(string): Quantity', quantityOrThrow)
    .registerFunction('isQuantity(string): bool', (text: string) => {
      try {
        parseQuantity(text);
        return true;
      } catch {
        return false;
      }
    })
    .registerFunction('semver(string): Semver', semverOrThrow)
    .registerFunction('isSemver(string): bool', (text: string) => semver.parse(text) !== null);
  const cmp = (a: CelQuantity, b: CelQuantity): number => compareQuantities(a.q, b.q);
  method(env, 'Quantity', 'compareTo', 'int', ['Quantity'], (a: CelQuantity, b: CelQuantity) => BigInt(cmp(a, b)));
  method(env, 'Quantity', 'isGreaterThan', 'bool', ['Quantity'], (a: CelQuantity, b: CelQuantity) => cmp(a, b) > 0);
  method(env, 'Quantity', 'isLessThan', 'bool', ['Quantity'], (a: CelQuantity, b: CelQuantity) => cmp(a, b) < 0);
  method(env, 'Quantity', 'sign', 'int', [], (a: CelQuantity) => BigInt(a.q.mantissa > 0n ? 1 : a.q.mantissa < 0n ? -1 : 0));
  // Quantities carry at most nano precision (upstream Quantity), so nano units decide integrality exactly.
  const nanos = (a: CelQuantity): bigint => toScaledCeil(a.q, 9);
  method(env, 'Quantity', 'isInteger', 'bool', [], (a: CelQuantity) => nanos(a) % NANO === 0n);
  method(env, 'Quantity', 'asInteger', 'int', [], (a: CelQuantity) => {
    if (nanos(a) % NANO !== 0n) throw new Error('quantity is not an integer');
    return nanos(a) / NANO;
  });
  method(env, 'Quantity', 'asApproximateFloat', 'double', [], (a: CelQuantity) => Number(toScaledCeil(a.q, 9)) / 1e9);
  const vcmp = (a: CelSemver, b: CelSemver): number => semver.compare(a.v, b.v);
  method(env, 'Semver', 'compareTo', 'int', ['Semver'], (a: CelSemver, b: CelSemver) => BigInt(vcmp(a, b)));
  method(env, 'Semver', 'isGreaterThan', 'bool', ['Semver'], (a: CelSemver, b: CelSemver) => vcmp(a, b) > 0);
  method(env, 'Semver', 'isLessThan', 'bool', ['Semver'], (a: CelSemver, b: CelSemver) => vcmp(a, b) < 0);
  method(env, 'Semver', 'major', 'int', [], (a: CelSemver) => BigInt(a.v.major));
  method(env, 'Semver', 'minor', 'int', [], (a: CelSemver) => BigInt(a.v.minor));
  method(env, 'Semver', 'patch', 'int', [], (a: CelSemver) => BigInt(a.v.patch));
  return env;
}

export class DeviceSelectors {
  private readonly env = buildEnvironment();
  private readonly programs: LRUCache<string, { program?: Program; error?: string }>;
  private readonly activations = new WeakMap<CelDeviceInput, Record<string, unknown>>();

  constructor(cacheSize = 1000) {
    this.programs = new LRUCache({ max: cacheSize });
  }

  /** The compiled program of an expression, or why it cannot be evaluated. Cached by expression text. */
  compile(expression: string): { program?: Program; error?: string } {
    let hit = this.programs.get(expression);
    if (hit) return hit;
    if (expression.length > MAX_EXPRESSION_LENGTH) hit = { error: `expression longer than ${MAX_EXPRESSION_LENGTH} characters` };
    else {
      try {
        const parsed = this.env.parse(expression);
        const checked = parsed.check();
        hit = checked.valid ? { program: parsed as Program } : { error: `CEL: ${firstLine(checked.error?.message)}` };
      } catch (err) {
        hit = { error: `CEL: ${firstLine((err as Error).message)}` };
      }
    }
    this.programs.set(expression, hit);
    return hit;
  }

  /** All expressions must be true for the device to match (selectors of a class and a request are ANDed). */
  evaluate(expressions: readonly string[], device: CelDeviceInput): SelectorOutcome {
    for (const expression of expressions) {
      const compiled = this.compile(expression);
      if (!compiled.program) return { error: `${compiled.error} in ${JSON.stringify(expression)}` };
      let value: unknown;
      try {
        value = compiled.program({ device: this.activationOf(device) });
      } catch (err) {
        return { error: `CEL: ${firstLine((err as Error).message)} in ${JSON.stringify(expression)}` };
      }
      if (typeof value !== 'boolean') return { error: `CEL: ${JSON.stringify(expression)} did not evaluate to a bool` };
      if (!value) return { matches: false };
    }
    return { matches: true };
  }

  private activationOf(device: CelDeviceInput): Record<string, unknown> {
    let activation = this.activations.get(device);
    if (!activation) {
      activation = {
        driver: device.driver,
        attributes: byDomain(device.attributes, attributeValue),
        capacity: byDomain(device.capacity, (c) => quantityOrThrow(c.value)),
        allowMultipleAllocations: device.allowMultipleAllocations,
      };
      this.activations.set(device, activation);
    }
    return activation;
  }
}

function byDomain<V, O>(values: Readonly<Record<string, V>>, convert: (v: V) => O): Map<string, Map<string, O>> {
  const out = new Map<string, Map<string, O>>();
  for (const [qualified, value] of Object.entries(values)) {
    const slash = qualified.lastIndexOf('/');
    const domain = qualified.slice(0, slash);
    const name = qualified.slice(slash + 1);
    let inDomain = out.get(domain);
    if (!inDomain) out.set(domain, (inDomain = new Map()));
    try {
      inDomain.set(name, convert(value));
    } catch {
      // an unreadable value is left out: a selector reading it fails ("no such key") and the device may match
    }
  }
  return out;
}

function attributeValue(value: DeviceAttributeValue): unknown {
  if (value.int !== undefined) return BigInt(value.int);
  if (value.bool !== undefined) return value.bool;
  if (value.string !== undefined) return value.string;
  if (value.version !== undefined) return semverOrThrow(value.version);
  throw new Error('empty attribute');
}

function firstLine(text: string | undefined): string {
  return (text ?? 'unknown error').split('\n')[0]!;
}
