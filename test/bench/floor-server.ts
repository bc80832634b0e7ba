/**
 * The floor: a plain node:http server that reads the body, JSON.parses it and answers with every node passed
 * through, in the reply shape of each verb. Nothing written in Node can answer the same payload faster, so
 * kube-ledger's throughput is reported as a ratio of this server's, measured in the same run.
 *
 * With `--koa` the same replies come from a bare Koa app with @koa/router and no middleware: the floor of the HTTP
 * framework the design card fixes, so a report can tell the framework's share of the gap from kube-ledger's own.
 *
 * Run as a script (`node --import tsx test/bench/floor-server.ts --port 0 [--koa]`) it prints `{"port":N}` on stdout.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import Router from '@koa/router';
import Koa from 'koa';

type Json = { [key: string]: unknown };

function nodeNamesOf(args: Json): string[] {
  if (Array.isArray(args.NodeNames)) return args.NodeNames as string[];
  const items = (args.Nodes as { items?: Array<{ metadata?: { name?: string } }> } | null)?.items ?? [];
  return items.map((node) => node.metadata?.name ?? '');
}

/** The pass-through reply for one verb, or undefined for an unknown path. */
export function floorReply(path: string, args: Json): unknown {
  switch (path) {
    case '/filter':
      return { Nodes: args.Nodes ?? null, NodeNames: args.NodeNames ?? null, FailedNodes: {},
        FailedAndUnresolvableNodes: {}, Error: '' };
    case '/prioritize':
      return nodeNamesOf(args).map((Host) => ({ Host, Score: 0 }));
    case '/preempt':
      return { NodeNameToMetaVictims: args.NodeNameToMetaVictims ?? null };
    default:
      return undefined;
  }
}

function send(res: ServerResponse, status: number, body: string, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === 'GET') {
    if (req.url === '/readyz' || req.url === '/healthz') send(res, 200, 'ok', 'text/plain');
    else send(res, 404, 'not found', 'text/plain');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let args: Json;
    try {
      args = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
    } catch {
      send(res, 400, JSON.stringify({ Error: 'invalid JSON' }));
      return;
    }
    const reply = floorReply(req.url ?? '', args);
    if (reply === undefined) send(res, 404, JSON.stringify({ Error: 'unknown verb' }));
    else send(res, 200, JSON.stringify(reply));
  });
}

export function createFloorServer(): Server {
  const server = createServer(handle);
  server.keepAliveTimeout = 60_000;
  return server;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The same replies through Koa + @koa/router, with nothing else in the middleware chain. */
export function createKoaFloorServer(): Server {
  const app = new Koa();
  const router = new Router();
  for (const path of ['/filter', '/prioritize', '/preempt']) {
    router.post(path, async (ctx) => {
      let args: Json;
      try {
        args = JSON.parse((await readBody(ctx.req)).toString('utf8')) as Json;
      } catch {
        ctx.status = 400;
        ctx.body = JSON.stringify({ Error: 'invalid JSON' });
        return;
      }
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(floorReply(path, args));
    });
  }
  router.get(['/readyz', '/healthz'], (ctx) => {
    ctx.body = 'ok';
  });
  app.use(router.routes());
  const server = createServer(app.callback());
  server.keepAliveTimeout = 60_000;
  return server;
}

function main(): void {
  const portFlag = process.argv.indexOf('--port');
  const port = portFlag >= 0 ? Number(process.argv[portFlag + 1]) : 0;
  const server = process.argv.includes('--koa') ? createKoaFloorServer() : createFloorServer();
  server.listen(port, '127.0.0.1', () => {
    const address = server.address();
    const actual = typeof address === 'object' && address ? address.port : port;
    process.stdout.write(`${JSON.stringify({ port: actual })}\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
