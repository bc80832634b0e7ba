/** A stub ExtenderService, a server started on 127.0.0.1:0, and a raw http client that reports status, headers and body. */
import { request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import type { ExtenderService, Readiness } from '../../src/http/extender-port.js';
import { DEFAULT_HTTP_OPTIONS, type HttpServerOptions } from '../../src/http/server-options.js';
import { startExtenderServer, type RunningExtenderServer } from '../../src/http/server.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import type { LingerBounds } from '../../src/http/lingering-close.js';
import type { ExtenderArgs, ExtenderFilterResult, ExtenderPreemptionArgs, ExtenderPreemptionResult, HostPriorityList } from '../../src/protocol/types.js';

export interface StubService extends ExtenderService {
  readinessState: Readiness;
  calls: string[];
  failWith?: Error;
  preemptDelay?: Promise<void>;
}

/** Passes every node, scores by list position, keeps every proposed victim. */
export function createStubService(): StubService {
  const stub: StubService = {
    readinessState: { ready: true, reasons: [] },
    calls: [],
    filter(args: ExtenderArgs): ExtenderFilterResult {
      stub.calls.push('filter');
      if (stub.failWith) throw stub.failWith;
      return { Nodes: args.Nodes, NodeNames: args.NodeNames, FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' };
    },
    prioritize(args: ExtenderArgs): HostPriorityList {
      stub.calls.push('prioritize');
      if (stub.failWith) throw stub.failWith;
      const names = args.NodeNames ?? args.Nodes?.items.map((n) => String((n['metadata'] as { name: string }).name)) ?? [];
      return names.map((Host, i) => ({ Host, Score: Math.min(10, i) }));
    },
    async preempt(args: ExtenderPreemptionArgs): Promise<ExtenderPreemptionResult> {
      stub.calls.push('preempt');
      await stub.preemptDelay;
      if (stub.failWith) throw stub.failWith;
      if (args.NodeNameToMetaVictims) return { NodeNameToMetaVictims: args.NodeNameToMetaVictims };
      const converted: ExtenderPreemptionResult['NodeNameToMetaVictims'] = {};
      for (const [node, victims] of Object.entries(args.NodeNameToVictims ?? {})) {
        converted[node] = {
          Pods: victims.Pods.map((pod) => ({ UID: String((pod['metadata'] as { uid: string }).uid) })),
          NumPDBViolations: victims.NumPDBViolations,
        };
      }
      return { NodeNameToMetaVictims: converted };
    },
    explain(namespace, name) {
      return namespace === 'ml' && name === 'trainer-0' ? { pod: `${namespace}/${name}`, nodes: [] } : undefined;
    },
    exportLedger(node) {
      if (node === undefined) return { nodes: ['node-a'] };
      return node === 'node-a' ? { node: 'node-a', allocated: {} } : undefined;
    },
    readiness: () => stub.readinessState,
  };
  return stub;
}

export interface TestServer {
  running: RunningExtenderServer;
  stub: StubService;
  metrics: Metrics;
  /** The operations port (/healthz, /readyz, /metrics). */
  opsPort: number;
}

/** Both listeners on loopback, any free ports; /debug on unless the test says otherwise. */
export async function startTestServer(
  options: Partial<HttpServerOptions> = {},
  extra: { logger?: Logger; linger?: LingerBounds } = {},
): Promise<TestServer> {
  const stub = createStubService();
  const metrics = createMetrics();
  const running = await startExtenderServer({
    service: stub,
    metrics,
    logger: extra.logger ?? silentLogger,
    ...(extra.linger ? { linger: extra.linger } : {}),
    options: { ...DEFAULT_HTTP_OPTIONS, host: '127.0.0.1', port: 0, debugEnabled: true, ...options, ops: { host: '127.0.0.1', port: 0, ...options.ops } },
  });
  return { running, stub, metrics, opsPort: running.ops.port };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): any;
}

export function send(
  port: number,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  extra: RequestOptions = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, ...extra }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const post = (port: number, path: string, body: string | Buffer, headers?: Record<string, string>) =>
  send(port, 'POST', path, body, headers);
