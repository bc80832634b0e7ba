/**
 * metav1.LabelSelector evaluation with apimachinery's rules (`LabelSelectorAsSelector`): a nil selector selects
 * nothing, an empty one everything; In/NotIn need values, Exists/DoesNotExist take none, and any other operator is
 * an error. Callers decide what an invalid selector means for them (upstream's PDB code skips it; preemption's
 * relevance proof treats it as "may select", the safe side).
 */
import type { LabelSelector } from '../ledger/objects.js';

export type Labels = Readonly<Record<string, string>> | undefined;

export type ParsedSelector =
  | { kind: 'nothing' }
  | { kind: 'everything' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'requirements'; matches: (labels: Labels) => boolean };

type Check = (labels: Labels) => boolean;

export function parseSelector(selector: LabelSelector | null | undefined): ParsedSelector {
  if (selector === null || selector === undefined) return { kind: 'nothing' };
  const malformed = shapeProblem(selector);
  if (malformed !== undefined) return { kind: 'invalid', reason: malformed };
  const checks: Check[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    checks.push((labels) => labels?.[key] === value);
  }
  const invalid = addExpressionChecks(selector.matchExpressions ?? [], checks);
  if (invalid !== undefined) return { kind: 'invalid', reason: invalid };
  if (checks.length === 0) return { kind: 'everything' };
  return { kind: 'requirements', matches: (labels) => checks.every((check) => check(labels)) };
}

/** Why the selector's JSON is not a selector (wire input is not checked by the type), or undefined. */
function shapeProblem(selector: LabelSelector): string | undefined {
  if (typeof selector !== 'object' || Array.isArray(selector)) return 'selector is not an object';
  const { matchLabels, matchExpressions } = selector;
  if (matchLabels !== undefined && matchLabels !== null && (typeof matchLabels !== 'object' || Array.isArray(matchLabels))) {
    return 'matchLabels is not a map';
  }
  if (matchExpressions !== undefined && matchExpressions !== null && !Array.isArray(matchExpressions)) {
    return 'matchExpressions is not a list';
  }
  return undefined;
}

/** Adds a check per expression; the first invalid one's reason, or undefined when all are valid. */
function addExpressionChecks(expressions: NonNullable<LabelSelector['matchExpressions']>, checks: Check[]): string | undefined {
  for (const expression of expressions) {
    if (typeof expression !== 'object' || expression === null || (expression.values !== undefined && !Array.isArray(expression.values))) {
      return 'malformed matchExpressions entry';
    }
    const check = requirement(expression);
    if (typeof check === 'string') return check;
    checks.push(check);
  }
  return undefined;
}

function requirement(expression: { key: string; operator: string; values?: string[] }): ((labels: Labels) => boolean) | string {
  const { key, operator } = expression;
  const values = expression.values ?? [];
  const has = (labels: Labels) => labels !== undefined && Object.prototype.hasOwnProperty.call(labels, key);
  switch (operator) {
    case 'In':
      if (values.length === 0) return `${key} In: values must be non-empty`;
      return (labels) => has(labels) && values.includes(labels![key]!);
    case 'NotIn':
      if (values.length === 0) return `${key} NotIn: values must be non-empty`;
      return (labels) => !has(labels) || !values.includes(labels![key]!);
    case 'Exists':
      if (values.length > 0) return `${key} Exists: values must be empty`;
      return has;
    case 'DoesNotExist':
      if (values.length > 0) return `${key} DoesNotExist: values must be empty`;
      return (labels) => !has(labels);
    default:
      return `${key}: "${operator}" is not a valid label selector operator`;
  }
}

/** Whether the selector selects these labels; `invalid` is returned as its own answer. */
export function selects(parsed: ParsedSelector, labels: Labels): boolean | 'invalid' {
  switch (parsed.kind) {
    case 'nothing':
      return false;
    case 'everything':
      return true;
    case 'invalid':
      return 'invalid';
    case 'requirements':
      return parsed.matches(labels);
  }
}
