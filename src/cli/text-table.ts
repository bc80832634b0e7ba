/**
 * Aligned plain-text columns for the operator views (`kube-ledger explain|ledger`, `?format=text`): what a person
 * reads in a terminal or a `curl` reply, so no colours, no box drawing, and the last column never padded.
 */

/** Rows of cells (the first row is the header) as lines whose columns line up, two spaces apart. */
export function alignColumns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** Resource names in reading order: cpu, memory, pods first, then the rest alphabetically. */
export function orderResources(names: Iterable<string>): string[] {
  const first = ['cpu', 'memory', 'pods'];
  const unique = [...new Set(names)];
  const leading = first.filter((name) => unique.includes(name));
  const rest = unique.filter((name) => !first.includes(name)).sort();
  return [...leading, ...rest];
}

/** `cpu 3, memory 4Gi` in resource reading order; `none` for an empty map. */
export function formatAmountList(amounts: Readonly<Record<string, string>>): string {
  const names = orderResources(Object.keys(amounts));
  if (names.length === 0) return 'none';
  return names.map((name) => `${name} ${amounts[name]}`).join(', ');
}

/** A record of string amounts from untrusted JSON (anything else is dropped). */
export function amountRecord(value: unknown): Record<string, string> {
  const amounts: Record<string, string> = {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return amounts;
  for (const [name, amount] of Object.entries(value)) {
    if (typeof amount === 'string' || typeof amount === 'number') amounts[name] = String(amount);
  }
  return amounts;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function asString(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : fallback;
}
