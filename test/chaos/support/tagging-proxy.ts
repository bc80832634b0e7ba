/**
 * A loopback reverse proxy in front of the fake API server that stamps every request with the replica it came
 * from (`x-chaos-replica`), so the fake's request log tells two kube-ledger processes apart (the log never keeps
 * tokens, and client-node sends no distinguishing User-Agent). Streams both ways (watches stay watches); when the
 * client goes away mid-request the upstream request is cut too, and when the API server is down the client's
 * connection is reset, as it would be without the proxy.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { REPLICA_HEADER } from './write-audit.js';

export interface TaggingProxy {
  url: string;
  /** While set, matching requests of this replica only are answered 503 (an asymmetric partition); undefined lifts it. */
  failWhen(predicate: ((path: string) => boolean) | undefined): void;
  /** Requests answered 503 by failWhen so far. */
  failed(): number;
  close(): Promise<void>;
}

export async function startTaggingProxy(upstreamUrl: string, replica: string): Promise<TaggingProxy> {
  const upstream = new URL(upstreamUrl);
  const sockets = new Set<Socket>();
  let failing: ((path: string) => boolean) | undefined;
  let failed = 0;
  const server = createServer((req, res) => {
    if (failing?.(req.url ?? '')) {
      failed += 1;
      res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'ServiceUnavailable', message: 'partitioned by the test', code: 503 }));
      return;
    }
    forward(upstream, replica, req, res);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    failWhen(predicate) {
      failing = predicate;
    },
    failed: () => failed,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function forward(upstream: URL, replica: string, req: IncomingMessage, res: ServerResponse): void {
  const outgoing = request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host, [REPLICA_HEADER]: replica } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    },
  );
  outgoing.on('error', () => res.destroy());
  res.on('close', () => {
    if (!res.writableFinished) outgoing.destroy();
  });
  req.pipe(outgoing);
}
