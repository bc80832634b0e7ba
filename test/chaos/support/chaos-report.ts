/**
 * The summary a chaos test file prints in `after`: one row per fault or scenario with what was injected, how the
 * cluster changed meanwhile, what kube-ledger answered, what it wrote (by outcome) and how fast it converged.
 */
export interface ScenarioRow {
  scenario: string;
  /** Faults injected, by kind (e.g. { dropWatches: 6 }). */
  faults: Record<string, number>;
  /** Cluster changes made during the fault, total. */
  changes?: number;
  /** kube-ledger's answers while the fault was on, e.g. { readyz: {200: 40}, filter: {200: 40} }. */
  answered?: Record<string, Record<string, number>>;
  /** API requests kube-ledger sent that the fake answered, by outcome. */
  apiRequests?: Record<string, number>;
  /** pods/status PATCHes by outcome. */
  writes?: Record<string, number>;
  convergedMs?: number;
  violations: number;
  notes?: string[];
}

function compact(record: Record<string, unknown> | undefined): string {
  if (!record) return '-';
  return Object.entries(record)
    .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? `{${compact(v as Record<string, unknown>)}}` : String(v)}`)
    .join(' ');
}

export class ChaosReport {
  private readonly rows: ScenarioRow[] = [];

  constructor(private readonly title: string) {}

  add(row: ScenarioRow): void {
    this.rows.push(row);
  }

  text(): string {
    const lines = [`=== ${this.title}: ${this.rows.length} scenarios ===`];
    for (const row of this.rows) {
      lines.push(`- ${row.scenario}`);
      lines.push(`    faults: ${compact(row.faults)}; cluster changes during fault: ${row.changes ?? 0}`);
      if (row.answered) lines.push(`    kube-ledger answered: ${compact(row.answered)}`);
      if (row.apiRequests) lines.push(`    API requests by outcome: ${compact(row.apiRequests)}`);
      if (row.writes) lines.push(`    pods/status writes: ${compact(row.writes)}`);
      lines.push(`    converged: ${row.convergedMs === undefined ? '-' : `${row.convergedMs} ms after the fault ended`}; violations: ${row.violations}`);
      for (const note of row.notes ?? []) lines.push(`    ${note}`);
    }
    return lines.join('\n');
  }

  print(): void {
    process.stdout.write(`\n${this.text()}\n`);
  }
}
