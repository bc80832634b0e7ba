/**
 * Counts kept as plain numbers on the request path and handed to their prom-client metric when it is read (a scrape,
 * `get()`): prom-client's `inc` validates and hashes its label object on every call (~2 us), and a filter request
 * counted 6-10 of them. The metric's `collect` hook calls `flushInto`, so every read sees every count.
 *
 * Labels are given as values in the metric's label-name order (one or two labels; none is the empty string key).
 */
interface Pending {
  labels: Record<string, string>;
  value: number;
  /** Handed over at least once: the series exists in the metric (a first count of 0 still creates it, as `inc` does). */
  published: boolean;
}

export class CounterTally {
  private readonly byFirst = new Map<string, Map<string, Pending>>();

  constructor(private readonly labelNames: readonly string[]) {
    if (labelNames.length > 2) throw new Error('CounterTally counts metrics of at most two labels');
  }

  /** Adds `n` (default 1) under the label values `first` (and `second`). */
  add(first: string, second: string, n = 1): void {
    let bySecond = this.byFirst.get(first);
    if (bySecond === undefined) this.byFirst.set(first, (bySecond = new Map()));
    let pending = bySecond.get(second);
    if (pending === undefined) bySecond.set(second, (pending = { labels: this.labelsOf(first, second), value: 0, published: false }));
    pending.value += n;
  }

  /** Hands every pending count to `counter` and starts again from zero. */
  flushInto(counter: { inc(labels: Record<string, string>, value: number): void }): void {
    for (const bySecond of this.byFirst.values()) {
      for (const pending of bySecond.values()) {
        if (pending.value === 0 && pending.published) continue;
        counter.inc(pending.labels, pending.value);
        pending.value = 0;
        pending.published = true;
      }
    }
  }

  private labelsOf(first: string, second: string): Record<string, string> {
    const labels: Record<string, string> = {};
    if (this.labelNames[0] !== undefined) labels[this.labelNames[0]] = first;
    if (this.labelNames[1] !== undefined) labels[this.labelNames[1]] = second;
    return labels;
  }
}

/** Per-label current values (an in-flight gauge): the request path moves plain numbers, `setInto` publishes them. */
export class GaugeTally {
  private readonly values = new Map<string, number>();

  constructor(private readonly labelName: string) {}

  add(label: string, delta: number): void {
    this.values.set(label, (this.values.get(label) ?? 0) + delta);
  }

  setInto(gauge: { set(labels: Record<string, string>, value: number): void }): void {
    for (const [label, value] of this.values) gauge.set({ [this.labelName]: label }, value);
  }
}
