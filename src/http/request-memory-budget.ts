/**
 * One budget for the memory that request bodies hold, shared by every request of the extender port: the body's bytes
 * as they arrive (Buffers, which `--max-old-space-size` does not bound), then, before it is parsed, an estimate of
 * what decoding it will take (json-decode-cost.ts). A request that cannot be charged is refused instead of growing
 * the process past its container's memory limit: 413 when it could never fit, shed (filter: 200 with `Error`;
 * prioritize, preempt: 503) while the budget is busy. Each request's charge is given back when it has been answered.
 */
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

export class RequestMemoryBudget {
  private used = 0;

  constructor(readonly totalBytes: number) {}

  get inUseBytes(): number {
    return this.used;
  }

  tryReserve(bytes: number): boolean {
    if (this.used + bytes > this.totalBytes) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** One request's share of the budget; `releaseAll` once the request is over (idempotent). */
export class MemoryCharge {
  private held = 0;

  constructor(private readonly budget: RequestMemoryBudget) {}

  get heldBytes(): number {
    return this.held;
  }

  /** Adds `bytes` to this request's charge; false (nothing charged) when the budget cannot take them now. */
  add(bytes: number): boolean {
    if (!this.budget.tryReserve(bytes)) return false;
    this.held += bytes;
    return true;
  }

  /** Whether `bytes` more could ever be charged to this request, even with every other request gone. */
  couldEverAdd(bytes: number): boolean {
    return this.held + bytes <= this.budget.totalBytes;
  }

  releaseAll(): void {
    this.budget.release(this.held);
    this.held = 0;
  }
}

/** A cgroup memory limit at or above this is "no limit" (cgroup v1 reports 2^63 rounded down to a page). */
const NO_LIMIT_FROM = 2 ** 60;

/** The share of the process's memory bound that request bodies may hold; the rest is the ledger's and V8's. */
export const BUDGET_SHARE_OF_MEMORY = 0.25;

/** The container's memory limit (cgroup v2, then v1), undefined without one. */
export function containerMemoryLimitBytes(read: (path: string) => string = (path) => readFileSync(path, 'utf8')): number | undefined {
  for (const file of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    let text: string;
    try {
      text = read(file).trim();
    } catch {
      continue;
    }
    const bytes = Number(text);
    if (text !== 'max' && Number.isSafeInteger(bytes) && bytes > 0 && bytes < NO_LIMIT_FROM) return bytes;
    return undefined;
  }
  return undefined;
}

/**
 * `server.requestMemoryBudgetBytes: 0`: a quarter of the smaller of the container's memory limit and V8's heap limit
 * (`--max-old-space-size` and the young generation). With the Deployment's 1 GiB limit and 768 MiB old space that is
 * about 216 MiB.
 */
export function derivedRequestMemoryBudget(containerLimitBytes = containerMemoryLimitBytes(), heapLimitBytes = getHeapStatistics().heap_size_limit): number {
  const bound = containerLimitBytes === undefined ? heapLimitBytes : Math.min(containerLimitBytes, heapLimitBytes);
  return Math.floor(bound * BUDGET_SHARE_OF_MEMORY);
}
