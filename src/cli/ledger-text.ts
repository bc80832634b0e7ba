/**
 * The /debug/ledger export for a person: the whole ledger as one line per node (free of allocatable per resource,
 * pod count, DRA use, unsafe DRA state), or one node with its pods, nominations and DRA claim entries. Shared by
 * `kube-ledger ledger` and `/debug/ledger?format=text`. Pure, and as tolerant of the export's shape as the explain view.
 */
import { alignColumns, amountRecord, asRecord, asString, formatAmountList, orderResources } from './text-table.js';

export function renderLedgerText(exported: unknown): string {
  const body = asRecord(exported);
  return Array.isArray(body['nodes']) ? renderCluster(body) : renderNode(body);
}

function renderCluster(body: Record<string, unknown>): string {
  const nodes = (body['nodes'] as unknown[]).map(asRecord);
  const lines: string[] = [];
  const counts = asRecord(body['counts']);
  const countText = Object.entries(counts).map(([name, count]) => `${asString(count)} ${name}`).join(', ');
  if (countText !== '') lines.push(`ledger: ${countText}`);
  const unsafe = Object.entries(asRecord(body['draUnsafeNodes']));
  if (unsafe.length > 0) {
    lines.push(`DRA unsafe nodes: ${unsafe.map(([node, why]) => `${node} (${describeUnsafe(why)})`).join('; ')}`);
  }
  const unknown = Object.entries(asRecord(body['draUnknownUseNodes']));
  if (unknown.length > 0) lines.push(`DRA use unknown: ${unknown.map(([node, u]) => `${node} (${describeUnknown(u)})`).join('; ')}`);
  const quarantined = Array.isArray(body['quarantined']) ? body['quarantined'].map(asRecord) : [];
  for (const held of quarantined) {
    const node = asString(held['node']);
    lines.push(`quarantined: ${asString(held['kind'], '-')} ${asString(held['key'], '-')}${node === '' ? '' : ` on ${node}`}: ${asString(held['reason'], '-')}`);
  }
  if (lines.length > 0) lines.push('');

  const resources = orderResources(nodes.flatMap((node) => Object.keys(amountRecord(node['allocatable']))));
  const header = ['NODE', 'PODS', ...resources.map((r) => `${r.toUpperCase()} FREE/ALLOCATABLE`), 'DRA USED'];
  const rows = [...nodes]
    .sort((a, b) => compare(asString(a['node']), asString(b['node'])))
    .map((node) => {
      const free = amountRecord(node['free']);
      const allocatable = amountRecord(node['allocatable']);
      const draUsed = amountRecord(node['draUsed']);
      return [
        asString(node['node'], '-'),
        asString(node['podCount'], '-'),
        ...resources.map((resource) => (allocatable[resource] === undefined ? '-' : `${free[resource] ?? '-'}/${allocatable[resource]}`)),
        Object.keys(draUsed).length === 0 ? '-' : formatAmountList(draUsed),
      ];
    });
  lines.push(...alignColumns([header, ...rows]));
  return lines.join('\n') + '\n';
}

function renderNode(node: Record<string, unknown>): string {
  const lines: string[] = [];
  lines.push(`node ${asString(node['node'], '-')} (resourceVersion ${asString(node['resourceVersion'], '-')})`);
  lines.push(`allocatable: ${formatAmountList(amountRecord(node['allocatable']))}`);
  lines.push(`requested:   ${formatAmountList(amountRecord(node['requested']))}`);
  lines.push(`DRA used:    ${formatAmountList(amountRecord(node['draUsed']))}`);
  lines.push(`free:        ${formatAmountList(amountRecord(node['free']))}`);
  lines.push(...podLines(node), ...nominatedLines(node), ...draLines(asRecord(node['dra'])));
  return lines.join('\n') + '\n';
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map(asRecord) : [];
}

/** The pods bound to the node, always with their count. */
function podLines(node: Record<string, unknown>): string[] {
  const pods = records(node['pods']);
  const lines = ['', `${pods.length} pod${pods.length === 1 ? '' : 's'}`];
  if (pods.length === 0) return lines;
  return [
    ...lines,
    ...alignColumns([
      ['POD', 'PRIORITY', 'REQUESTS'],
      ...pods.map((pod) => [
        asString(pod['pod'], '-') + (pod['terminating'] === true ? ' (terminating)' : ''),
        asString(pod['priority'], '-'),
        formatAmountList(amountRecord(pod['requests'])),
      ]),
    ]),
  ];
}

/** The nominated pods holding room on the node, if any. */
function nominatedLines(node: Record<string, unknown>): string[] {
  const nominated = records(node['nominated']);
  if (nominated.length === 0) return [];
  return [
    '',
    `${nominated.length} nominated pod${nominated.length === 1 ? '' : 's'} holding room here`,
    ...alignColumns([
      ['POD', 'PRIORITY', 'REQUESTS'],
      ...nominated.map((pod) => [asString(pod['pod'], '-'), asString(pod['priority'], '-'), formatAmountList(amountRecord(pod['requests']))]),
    ]),
  ];
}

/** The node's DRA claim entries, and whether its DRA accounting is unsafe or its use unknown. */
function draLines(dra: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const entries = records(dra['entries']);
  if (entries.length > 0) {
    lines.push('', `${entries.length} DRA claim entr${entries.length === 1 ? 'y' : 'ies'}`);
    lines.push(
      ...alignColumns([
        ['CLAIM', 'DEVICE', 'ZONE', 'RESOURCES'],
        ...entries.map((entry) => [
          asString(entry['claimKey'], '-'),
          `${asString(entry['driver'], '-')}/${asString(entry['pool'], '-')}/${asString(entry['device'], '-')}`,
          asString(entry['zone'], '-'),
          formatAmountList(amountRecord(entry['resources'])),
        ]),
      ]),
    );
  }
  if (dra['unsafe'] !== undefined && dra['unsafe'] !== null) lines.push('', `DRA unsafe: ${describeUnsafe(dra['unsafe'])}`);
  if (dra['unknownUse'] !== undefined && dra['unknownUse'] !== null) lines.push('', `DRA use unknown: ${describeUnknown(dra['unknownUse'])}`);
  return lines;
}

function describeUnsafe(value: unknown): string {
  if (typeof value === 'string') return value;
  const record = asRecord(value);
  const reason = asString(record['reason']);
  const detail = asString(record['detail']) || asString(record['message']);
  if (reason !== '' || detail !== '') return [reason, detail].filter((part) => part !== '').join(': ');
  return JSON.stringify(value);
}

/** `cpu, memory: <why>` of a node whose DRA use is unknown since a restart. */
function describeUnknown(value: unknown): string {
  const record = asRecord(value);
  const resources = Array.isArray(record['resources']) ? record['resources'].map((r) => asString(r)).join(', ') : '';
  return [resources, asString(record['reason'])].filter((part) => part !== '').join(': ');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
