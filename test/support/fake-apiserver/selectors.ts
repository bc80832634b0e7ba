/**
 * Label and field selectors with the API server's syntax and matching rules. A parse failure throws a 400 ApiError.
 */
import { badRequest } from './kube-status.js';
import type { KubeObject, ResourceType } from './resources.js';

type LabelOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';
interface LabelRequirement { key: string; operator: LabelOperator; values: string[] }

export type ObjectPredicate = (object: KubeObject) => boolean;

const KEY = String.raw`[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?`;
const VALUE = String.raw`([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?`;
const SET_REQUIREMENT = new RegExp(String.raw`^(${KEY})\s+(in|notin)\s*\(\s*([^)]*)\)$`);
const EQUALITY_REQUIREMENT = new RegExp(String.raw`^(${KEY})\s*(==|=|!=|>|<)\s*(${VALUE})$`);
const EXISTS_REQUIREMENT = new RegExp(String.raw`^(!?)\s*(${KEY})$`);

/** Splits on commas that are not inside a parenthesised value set. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current.trim());
  return parts.filter((p) => p !== '');
}

function parseLabelRequirement(text: string): LabelRequirement {
  const set = SET_REQUIREMENT.exec(text);
  if (set) {
    const values = (set[4] ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');
    return { key: set[1] ?? '', operator: set[3] === 'in' ? 'in' : 'notin', values };
  }
  const equality = EQUALITY_REQUIREMENT.exec(text);
  if (equality) {
    const op = equality[3];
    const operator: LabelOperator = op === '!=' ? '!=' : op === '>' ? 'gt' : op === '<' ? 'lt' : '=';
    return { key: equality[1] ?? '', operator, values: [equality[4] ?? ''] };
  }
  const exists = EXISTS_REQUIREMENT.exec(text);
  if (exists) return { key: exists[2] ?? '', operator: exists[1] === '!' ? '!' : 'exists', values: [] };
  throw badRequest(`unable to parse requirement: found '${text}', expected: valid label selector requirement`);
}

function requirementMatches(req: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  switch (req.operator) {
    case '=': return has && value === req.values[0];
    case '!=': return !has || value !== req.values[0];
    case 'in': return has && req.values.includes(value ?? '');
    case 'notin': return !has || !req.values.includes(value ?? '');
    case 'exists': return has;
    case '!': return !has;
    case 'gt': return has && /^-?\d+$/.test(value ?? '') && BigInt(value ?? '0') > BigInt(req.values[0] ?? '0');
    case 'lt': return has && /^-?\d+$/.test(value ?? '') && BigInt(value ?? '0') < BigInt(req.values[0] ?? '0');
  }
}

export function parseLabelSelector(text: string | null | undefined): ObjectPredicate {
  if (!text || text.trim() === '') return () => true;
  const requirements = splitTopLevel(text).map(parseLabelRequirement);
  return (object) => {
    const labels = object.metadata?.labels ?? {};
    return requirements.every((req) => requirementMatches(req, labels));
  };
}

/** The string value a field selector compares against: scalars as Go prints them, missing fields as "". */
export function fieldValue(object: KubeObject, path: string): string {
  let current: unknown = object;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object') return '';
    current = (current as Record<string, unknown>)[segment];
  }
  if (current === undefined || current === null) return '';
  return typeof current === 'object' ? JSON.stringify(current) : String(current);
}

/** Source fields on core events are matched against source.component, as the real server does. */
function resolveFieldPath(label: string): string {
  return label === 'source' ? 'source.component' : label;
}

export function parseFieldSelector(text: string | null | undefined, type: ResourceType): ObjectPredicate {
  if (!text || text.trim() === '') return () => true;
  const supported = new Set(['metadata.name', 'metadata.namespace', ...type.extraFields]);
  const terms = text.split(',').map((term) => {
    const match = /^([^!=]+)(==|=|!=)(.*)$/.exec(term.trim());
    if (!match) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const label = (match[1] ?? '').trim();
    if (!supported.has(label)) throw badRequest(`field label not supported: ${label}`);
    return { path: resolveFieldPath(label), negated: match[2] === '!=', value: match[3] ?? '' };
  });
  return (object) => terms.every((t) => (fieldValue(object, t.path) === t.value) !== t.negated);
}

export function bothPredicates(a: ObjectPredicate, b: ObjectPredicate): ObjectPredicate {
  return (object) => a(object) && b(object);
}
