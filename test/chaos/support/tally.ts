/** Counts every hostile case tried, per category: how many, which statuses came back, the slowest answer. */

interface CategoryTally {
  count: number;
  statuses: Map<string, number>;
  maxMs: number;
  bytes: number;
}

export class CaseTally {
  private readonly categories = new Map<string, CategoryTally>();

  record(category: string, outcome: string, elapsedMs: number, bytes: number): void {
    let tally = this.categories.get(category);
    if (!tally) {
      tally = { count: 0, statuses: new Map(), maxMs: 0, bytes: 0 };
      this.categories.set(category, tally);
    }
    tally.count += 1;
    tally.statuses.set(outcome, (tally.statuses.get(outcome) ?? 0) + 1);
    tally.maxMs = Math.max(tally.maxMs, elapsedMs);
    tally.bytes += bytes;
  }

  total(): number {
    let sum = 0;
    for (const tally of this.categories.values()) sum += tally.count;
    return sum;
  }

  /** A Markdown table, ready to paste into a closing note. */
  table(): string {
    const rows = ['| category | cases | statuses seen | slowest ms | bytes sent |', '|---|---:|---|---:|---:|'];
    for (const [category, tally] of this.categories) {
      const statuses = [...tally.statuses].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}×${n}`).join(' ');
      rows.push(`| ${category} | ${tally.count} | ${statuses} | ${Math.round(tally.maxMs)} | ${tally.bytes} |`);
    }
    rows.push(`| **total** | ${this.total()} | | | |`);
    return rows.join('\n');
  }
}
