/**
 * Kubernetes label selectors in the text form `kubectl -l` takes (`a=b,c!=d,e in (x,y),f notin (z),g,!h`), for
 * `dra.nodeSelector`. Parsed once when the configuration loads, so a typo stops start-up (or a live reload) with a
 * message instead of silently selecting nothing.
 */
export type LabelRequirement =
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'doesnotexist' };

export interface TextLabelSelector {
  text: string;
  requirements: LabelRequirement[];
  matches(labels: Readonly<Record<string, string>>): boolean;
}

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

export class LabelSelectorError extends Error {}

export function parseLabelSelector(text: string): TextLabelSelector {
  const requirements = splitTerms(text).map(parseTerm);
  return { text, requirements, matches: (labels) => requirements.every((r) => satisfies(r, labels)) };
}

/** Undefined when `text` parses; else why not (for configuration errors). */
export function labelSelectorProblem(text: string): string | undefined {
  try {
    parseLabelSelector(text);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0) throw new LabelSelectorError(`unbalanced ")" in label selector ${JSON.stringify(text)}`);
    if (ch === ',' && depth === 0) {
      terms.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (depth !== 0) throw new LabelSelectorError(`unbalanced "(" in label selector ${JSON.stringify(text)}`);
  terms.push(current.trim());
  if (terms.some((t) => t === '')) throw new LabelSelectorError(`empty requirement in label selector ${JSON.stringify(text)}`);
  return terms;
}

function parseTerm(term: string): LabelRequirement {
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (set) {
    const values = set[3]!.split(',').map((v) => v.trim());
    return { key: checkKey(set[1]!), op: set[2] as 'in' | 'notin', values: values.map(checkValue) };
  }
  const equality = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (equality) {
    const op = equality[2] === '!=' ? 'notin' : 'in';
    return { key: checkKey(equality[1]!), op, values: [checkValue(equality[3]!)] };
  }
  if (term.startsWith('!')) return { key: checkKey(term.slice(1).trim()), op: 'doesnotexist' };
  return { key: checkKey(term), op: 'exists' };
}

function checkKey(key: string): string {
  if (!KEY.test(key)) throw new LabelSelectorError(`invalid label key ${JSON.stringify(key)}`);
  return key;
}

function checkValue(value: string): string {
  if (!VALUE.test(value)) throw new LabelSelectorError(`invalid label value ${JSON.stringify(value)}`);
  return value;
}

function satisfies(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.op) {
    case 'exists':
      return has;
    case 'doesnotexist':
      return !has;
    case 'in':
      return has && r.values.includes(labels[r.key]!);
    case 'notin':
      return !has || !r.values.includes(labels[r.key]!);
  }
}
