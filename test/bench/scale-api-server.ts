/**
 * A list/watch server for the scale bench (scale-bench.ts): the synthetic cluster of a cluster file (one object a
 * line, as writeClusterFile writes it) served the way kube-apiserver's watch cache serves it, at the speed of copying
 * bytes, so that at a million pods the bench measures kube-ledger and not the server. The objects are kept as their
 * encoded bytes (what the watch cache keeps per object), grouped by resource, in a few large buffers outside the JS
 * heap; nothing is ever parsed, sorted or re-encoded.
 *
 * Serves: paged lists (`limit`/`continue`, the continue token an index), watches from the cluster's resourceVersion
 * (bookmarks every few seconds, `timeoutSeconds`), watch-lists (`sendInitialEvents=true`: every object as an ADDED
 * event, then the `k8s.io/initial-events-end` bookmark; refused with 422 when started with `--no-watch-list`), and
 * `POST /control/expire`, which ends every open watch with a 410 ERROR event: the bench's forced relist. Writes wait
 * for the socket to drain, so a slow reader holds the server's memory flat.
 *
 * Run as a child process: `tsx test/bench/scale-api-server.ts --file CLUSTER.json [--no-watch-list]`; it prints one
 * line `{"port":N,"objects":{...}}` once it serves.
 */
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The resources kube-ledger lists and watches, by collection path. */
const RESOURCES: Record<string, { kind: string; apiVersion: string }> = {
  '/api/v1/nodes': { kind: 'Node', apiVersion: 'v1' },
  '/api/v1/pods': { kind: 'Pod', apiVersion: 'v1' },
  '/apis/resource.k8s.io/v1/resourceslices': { kind: 'ResourceSlice', apiVersion: 'resource.k8s.io/v1' },
  '/apis/resource.k8s.io/v1/resourceclaims': { kind: 'ResourceClaim', apiVersion: 'resource.k8s.io/v1' },
  '/apis/resource.k8s.io/v1/deviceclasses': { kind: 'DeviceClass', apiVersion: 'resource.k8s.io/v1' },
  '/apis/policy/v1/poddisruptionbudgets': { kind: 'PodDisruptionBudget', apiVersion: 'policy/v1' },
};

const ARENA_BYTES = 256 * 1024 * 1024;
const BOOKMARK_EVERY_MS = 5000;
/** Newer than every object of the synthetic cluster (their resourceVersions stay below 10^9). */
const CLUSTER_RESOURCE_VERSION = '2000000000';

/** Objects of one kind as encoded bytes: each a slice of one of a few large arenas. */
class EncodedObjects {
  private readonly arenas: Buffer[] = [];
  private used = ARENA_BYTES;
  private readonly arenaOf: number[] = [];
  private readonly starts: number[] = [];
  private readonly lengths: number[] = [];

  get count(): number {
    return this.starts.length;
  }

  add(bytes: Buffer): void {
    if (this.used + bytes.length > ARENA_BYTES) {
      this.arenas.push(Buffer.allocUnsafeSlow(Math.max(ARENA_BYTES, bytes.length)));
      this.used = 0;
    }
    const arena = this.arenas.length - 1;
    bytes.copy(this.arenas[arena]!, this.used);
    this.arenaOf.push(arena);
    this.starts.push(this.used);
    this.lengths.push(bytes.length);
    this.used += bytes.length;
  }

  at(index: number): Buffer {
    return this.arenas[this.arenaOf[index]!]!.subarray(this.starts[index]!, this.starts[index]! + this.lengths[index]!);
  }
}

const KIND_PATTERN = /"kind":"([A-Za-z]+)"/;

/** Reads a cluster file written one object a line into encoded objects by kind. */
export async function readClusterFile(file: string): Promise<Map<string, EncodedObjects>> {
  const byKind = new Map<string, EncodedObjects>();
  let rest = Buffer.alloc(0);
  const take = (line: Buffer): void => {
    let end = line.length;
    while (end > 0 && (line[end - 1] === 0x2c || line[end - 1] === 0x0d)) end--;
    if (end === 0 || line[0] !== 0x7b || line.subarray(0, 40).includes('"items"')) return;
    const kind = KIND_PATTERN.exec(line.toString('latin1', 0, Math.min(end, 200)))?.[1];
    if (!kind) return;
    let objects = byKind.get(kind);
    if (!objects) byKind.set(kind, (objects = new EncodedObjects()));
    objects.add(line.subarray(0, end));
  };
  for await (const chunk of createReadStream(file, { highWaterMark: 8 * 1024 * 1024 })) {
    const data = rest.length > 0 ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
    let start = 0;
    for (let newline = data.indexOf(0x0a); newline >= 0; newline = data.indexOf(0x0a, start)) {
      take(data.subarray(start, newline));
      start = newline + 1;
    }
    rest = Buffer.from(data.subarray(start));
  }
  take(rest);
  return byKind;
}

interface OpenWatch {
  res: ServerResponse;
  timers: NodeJS.Timeout[];
}

export class ScaleApiServer {
  private readonly watches = new Set<OpenWatch>();
  readonly counts = { lists: 0, watches: 0, watchLists: 0, expired: 0 };

  constructor(private readonly objects: Map<string, EncodedObjects>, private readonly watchList: boolean) {}

  handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://scale');
    if (req.method === 'POST' && url.pathname === '/control/expire') {
      this.expireAll();
      res.end(JSON.stringify({ expired: this.counts.expired }));
      return;
    }
    if (url.pathname === '/control/stats') {
      res.end(JSON.stringify(this.counts));
      return;
    }
    const resource = RESOURCES[url.pathname];
    if (!resource) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404 }));
      return;
    }
    const objects = this.objects.get(resource.kind) ?? new EncodedObjects();
    if (url.searchParams.get('watch') === '1' || url.searchParams.get('watch') === 'true') void this.watch(resource, objects, url.searchParams, res);
    else void this.list(resource, objects, url.searchParams, res);
  }

  private async list(resource: { kind: string; apiVersion: string }, objects: EncodedObjects, query: URLSearchParams, res: ServerResponse): Promise<void> {
    this.counts.lists++;
    const start = Number(query.get('continue') || '0');
    const limit = Number(query.get('limit') || '0') || objects.count;
    const end = Math.min(objects.count, start + limit);
    const metadata = end < objects.count ? { resourceVersion: CLUSTER_RESOURCE_VERSION, continue: String(end), remainingItemCount: objects.count - end }
      : { resourceVersion: CLUSTER_RESOURCE_VERSION };
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const out = new BatchedWriter(res);
    await out.add(Buffer.from(`{"kind":"${resource.kind}List","apiVersion":"${resource.apiVersion}","metadata":${JSON.stringify(metadata)},"items":[`));
    for (let i = start; i < end; i++) {
      if (i > start) await out.add(COMMA);
      await out.add(objects.at(i));
    }
    await out.flush();
    res.end(']}');
  }

  private async watch(resource: { kind: string; apiVersion: string }, objects: EncodedObjects, query: URLSearchParams, res: ServerResponse): Promise<void> {
    const initial = query.get('sendInitialEvents') === 'true';
    if (initial && !this.watchList) {
      res.writeHead(422, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
        message: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' }));
      return;
    }
    this.counts.watches++;
    const open: OpenWatch = { res, timers: [] };
    this.watches.add(open);
    res.on('close', () => this.forget(open));
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
    const bookmark = (end: boolean) => `{"type":"BOOKMARK","object":{"kind":"${resource.kind}","apiVersion":"${resource.apiVersion}","metadata":`
      + `{"resourceVersion":"${CLUSTER_RESOURCE_VERSION}"${end ? ',"annotations":{"k8s.io/initial-events-end":"true"}' : ''}}}}\n`;
    if (initial) {
      this.counts.watchLists++;
      const out = new BatchedWriter(res);
      for (let i = 0; i < objects.count && this.watches.has(open); i++) {
        await out.add(ADDED_PREFIX);
        await out.add(objects.at(i));
        await out.add(EVENT_SUFFIX);
      }
      await out.flush();
      if (this.watches.has(open)) await write(res, bookmark(true));
    }
    if (!this.watches.has(open)) return;
    open.timers.push(setInterval(() => res.write(bookmark(false)), BOOKMARK_EVERY_MS));
    const timeoutSeconds = Number(query.get('timeoutSeconds') || '0');
    if (timeoutSeconds > 0) open.timers.push(setTimeout(() => res.end(), timeoutSeconds * 1000));
  }

  /** Ends every open watch with a 410 Expired ERROR event: each watcher relists. */
  expireAll(): void {
    for (const open of [...this.watches]) {
      this.forget(open);
      open.res.end('{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}}\n');
      this.counts.expired++;
    }
  }

  private forget(open: OpenWatch): void {
    this.watches.delete(open);
    for (const timer of open.timers) clearTimeout(timer);
  }
}

const COMMA = Buffer.from(',');
const ADDED_PREFIX = Buffer.from('{"type":"ADDED","object":');
const EVENT_SUFFIX = Buffer.from('}\n');
const BATCH_BYTES = 256 * 1024;

/** Joins small pieces into writes of ~256 KiB: one socket write per few hundred objects, not three per object. */
class BatchedWriter {
  private parts: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly res: ServerResponse) {}

  add(part: Buffer): Promise<void> | void {
    this.parts.push(part);
    this.bytes += part.length;
    return this.bytes >= BATCH_BYTES ? this.flush() : undefined;
  }

  flush(): Promise<void> | void {
    if (this.parts.length === 0) return;
    const batch = Buffer.concat(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    return write(this.res, batch);
  }
}

/** Writes and, when the socket's buffer is full, waits for it to drain. */
function write(res: ServerResponse, chunk: string | Buffer): Promise<void> | void {
  if (res.destroyed || res.writableEnded) return;
  if (res.write(chunk)) return;
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const file = args[args.indexOf('--file') + 1];
  if (!file || args.indexOf('--file') < 0) throw new Error('usage: scale-api-server.ts --file CLUSTER.json [--no-watch-list]');
  const objects = await readClusterFile(file);
  const api = new ScaleApiServer(objects, !args.includes('--no-watch-list'));
  const server = createServer((req, res) => api.handle(req, res));
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const counts = Object.fromEntries([...objects].map(([kind, encoded]) => [kind, encoded.count]));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, objects: counts })}\n`);
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

if (process.argv[1]?.endsWith('scale-api-server.ts')) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
