/**
 * "Why is my pod pending" for a person: the /debug/explain report as one line per node (fits first, then grouped by
 * reason), a summary counting nodes by reason, and the pod's effective requests. Shared by `kube-ledger explain` and
 * `/debug/explain?format=text`, so both print the same table. Pure: JSON in, text out.
 *
 * The input is read defensively: the report's shape is a contract between versions (an older or newer server may
 * answer), so unknown fields are ignored and missing ones are shown as `-`. A per-node `reason` is expected to be a
 * short cause shared by every node failing the same way ("Insufficient cpu"), with the numbers in `detail`; a report
 * from a server that puts the numbers into `reason` itself is split here into the same two parts.
 */
import { alignColumns, amountRecord, asRecord, asString, formatAmountList, orderResources } from './text-table.js';

export interface ExplainedNode {
  node: string;
  verdict: string;
  reason: string;
  code?: string;
  detail?: string;
  free: Record<string, string>;
  notes: string[];
}

const FITS = 'fits';

/** Reads one `nodes[]` entry, splitting a legacy numbered reason into cause and detail. */
export function readExplainedNode(value: unknown): ExplainedNode {
  const entry = asRecord(value);
  const verdict = asString(entry['verdict'], '-');
  const rawReason = asString(entry['reason'], verdict === FITS ? FITS : '-');
  const hasDetail = typeof entry['detail'] === 'string';
  const detail = hasDetail ? withoutRepeatedReason(entry['detail'] as string, rawReason) : undefined;
  const split = !hasDetail && verdict !== FITS ? splitLegacyReason(rawReason) : { reason: rawReason };
  const node: ExplainedNode = {
    node: asString(entry['node'], '-'),
    verdict,
    reason: split.reason,
    free: amountRecord(entry['free']),
    notes: Array.isArray(entry['notes']) ? entry['notes'].map((note) => asString(note)).filter((note) => note !== '') : [],
  };
  const code = asString(entry['code']);
  if (code !== '') node.code = code;
  const shownDetail = detail ?? split.detail;
  if (shownDetail !== undefined) node.detail = shownDetail;
  return node;
}

/** A detail that only repeats the reason says nothing; one that starts with it ("Insufficient cpu: requests 3, …") keeps the rest. */
function withoutRepeatedReason(detail: string, reason: string): string | undefined {
  if (detail === '' || detail === reason) return undefined;
  return detail.startsWith(`${reason}: `) ? detail.slice(reason.length + 2) : detail;
}

/**
 * `Insufficient cpu: requests 3, free 2 of 8; Insufficient memory: …` → cause `Insufficient cpu; Insufficient
 * memory` (how the stable reasons join several causes), detail the whole text. A `;`-separated part starting in lower case continues the part before it (DRA
 * messages list claims that way), so only capitalised parts start a new cause.
 */
export function splitLegacyReason(reason: string): { reason: string; detail?: string } {
  if (!reason.includes(':')) return { reason };
  const causes: string[] = [];
  for (const part of reason.split('; ')) {
    const colon = part.indexOf(':');
    const startsCause = /^[A-Z]/.test(part);
    if (startsCause) causes.push(colon === -1 ? part : part.slice(0, colon));
  }
  if (causes.length === 0) return { reason };
  const unique = [...new Set(causes)];
  // One cause: the detail is what follows its name; several: the whole text, each number next to its cause.
  const detail = causes.length === 1 && reason.startsWith(`${unique[0]}: `) ? reason.slice(unique[0]!.length + 2) : reason;
  return { reason: unique.join('; '), detail };
}

/** Fits first, then by reason, then by node name: nodes failing the same way sit together. */
export function sortExplainedNodes(nodes: readonly ExplainedNode[]): ExplainedNode[] {
  const rank = (n: ExplainedNode) => (n.verdict === FITS ? 0 : 1);
  return [...nodes].sort((a, b) => rank(a) - rank(b) || compare(a.reason, b.reason) || compare(a.node, b.node));
}

/** `7 nodes: 3 fits | 3 Insufficient cpu | 1 Insufficient cpu; Insufficient memory` (most common cause first after fits). */
export function summariseByReason(nodes: readonly ExplainedNode[]): string {
  const counts = new Map<string, number>();
  for (const node of nodes) counts.set(node.reason, (counts.get(node.reason) ?? 0) + 1);
  const groups = [...counts].sort(([reasonA, countA], [reasonB, countB]) =>
    (reasonA === FITS ? -1 : 0) - (reasonB === FITS ? -1 : 0) || countB - countA || compare(reasonA, reasonB),
  );
  const fitting = counts.get(FITS) ?? 0;
  if (!counts.has(FITS)) groups.unshift([FITS, fitting]);
  const noun = nodes.length === 1 ? 'node' : 'nodes';
  // ' | ' between groups: a reason with several causes joins them with '; '.
  return `${nodes.length} ${noun}: ${groups.map(([reason, count]) => `${count} ${reason}`).join(' | ')}`;
}

export function renderExplainText(report: unknown): string {
  const body = asRecord(report);
  const nodes = Array.isArray(body['nodes']) ? body['nodes'].map(readExplainedNode) : [];
  const lines: string[] = [];

  const facts = [asString(body['phase'], ''), body['priority'] === undefined ? '' : `priority ${asString(body['priority'])}`];
  lines.push(`pod ${asString(body['pod'], '-')}${describe(facts)}`);
  const held = asString(body['quarantined']);
  if (held !== '') {
    // A pod kube-ledger could not read (ledger/quarantine.ts): why, and the node it makes refuse.
    const refused = asString(body['refusedNode']);
    lines.push(`quarantined: ${held}${refused === '' ? '' : ` (node ${refused} refused while it is)`}`);
  }
  lines.push(`effective requests: ${formatAmountList(amountRecord(body['requests']))}`);
  const bound = asString(body['boundNode']);
  if (bound !== '') lines.push(`bound to: ${bound}`);
  const nominated = readNominated(body['nominatedNodeVerdict'], asString(body['nominatedNodeName']));
  if (nominated !== undefined) lines.push(nominated);
  if (typeof body['draEnabled'] === 'boolean') lines.push(`DRA node-allocatable accounting: ${body['draEnabled'] ? 'on' : 'off'}`);
  lines.push('');

  const sorted = sortExplainedNodes(nodes);
  const resources = deciding(sorted, Object.keys(amountRecord(body['requests'])));
  const header = ['NODE', 'VERDICT', 'REASON', ...resources.map((r) => `FREE ${r.toUpperCase()}`), 'DETAIL'];
  const rows = sorted.map((node) => [
    node.node,
    node.verdict,
    node.reason,
    ...resources.map((resource) => node.free[resource] ?? '-'),
    [node.detail, ...node.notes].filter((part) => part !== undefined && part !== '').join('; '),
  ]);
  lines.push(...alignColumns([header, ...rows]));
  lines.push('');
  lines.push(summariseByReason(sorted));
  return lines.join('\n') + '\n';
}

/**
 * The free amounts worth a column: cpu, memory and pods always, whatever the pod requests, and any resource a reason
 * or detail names (hugepages in a NUMA message). The JSON form keeps every resource.
 */
function deciding(nodes: readonly ExplainedNode[], requested: readonly string[]): string[] {
  const always = new Set(['cpu', 'memory', 'pods', ...requested]);
  const said = nodes.map((node) => `${node.reason} ${node.detail ?? ''}`).join('\n');
  const present = new Set(nodes.flatMap((node) => Object.keys(node.free)));
  return orderResources([...present].filter((resource) => always.has(resource) || said.includes(resource)));
}

function readNominated(value: unknown, nominatedNodeName: string): string | undefined {
  if (value === undefined && nominatedNodeName === '') return undefined;
  const verdict = value === undefined ? undefined : readExplainedNode(value);
  const node = verdict?.node ?? nominatedNodeName;
  if (verdict === undefined) return `nominated node: ${node}`;
  const why = verdict.verdict === FITS ? FITS : `${verdict.verdict}: ${verdict.detail ?? verdict.reason}`;
  return `nominated node: ${node} (${why})`;
}

function describe(facts: string[]): string {
  const shown = facts.filter((fact) => fact !== '');
  return shown.length === 0 ? '' : ` (${shown.join(', ')})`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
