/**
 * Keeps asking a running kube-ledger what kube-scheduler and the kubelet ask — GET /readyz and POST /filter — while a
 * fault is on, and counts the answers by status, so a test can say "every request was answered, ready throughout".
 */
import type { FakeApiServer } from '../../support/fake-apiserver/index.js';
import { sleep } from '../../support/eventually.js';

export interface ProbeCounts {
  readyz: Record<string, number>;
  filter: Record<string, number>;
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

function filterBody(api: FakeApiServer): string {
  const nodeNames = api.list('nodes').map((n) => n.metadata?.name ?? '');
  const pod = {
    metadata: { name: 'probe', namespace: 'probe', uid: 'uid-probe', resourceVersion: '1' },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu: '250m', memory: '128Mi' } } }] },
    status: { phase: 'Pending' },
  };
  return JSON.stringify({ Pod: pod, Nodes: null, NodeNames: nodeNames });
}

async function statusOf(request: Promise<Response>): Promise<string> {
  try {
    const response = await request;
    await response.arrayBuffer();
    return String(response.status);
  } catch (err) {
    return `error:${(err as Error).name}`;
  }
}

export class ExtenderProbe {
  readonly counts: ProbeCounts = { readyz: {}, filter: {} };
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly baseUrl: string, private readonly opsBaseUrl: string, private readonly api: FakeApiServer, private readonly intervalMs = 50) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<ProbeCounts> {
    this.running = false;
    await this.loop;
    return this.counts;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const signal = AbortSignal.timeout(5000);
      const [ready, filter] = await Promise.all([
        statusOf(fetch(`${this.opsBaseUrl}/readyz`, { signal })),
        statusOf(fetch(`${this.baseUrl}/filter`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: filterBody(this.api), signal })),
      ]);
      bump(this.counts.readyz, ready);
      bump(this.counts.filter, filter);
      await sleep(this.intervalMs);
    }
  }
}
