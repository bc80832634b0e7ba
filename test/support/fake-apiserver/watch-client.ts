/**
 * A small raw watch reader for tests: opens a watch URL, parses newline-delimited events, and lets a test wait for
 * the event it expects. Independent of client-node so the fake's wire format is tested directly.
 */
import { request, type IncomingMessage } from 'node:http';

export interface WatchEvent {
  type: string;
  object: { kind?: string; apiVersion?: string; metadata?: { name?: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string> }; code?: number; reason?: string; [k: string]: unknown };
}

export interface RawWatch {
  readonly status: number;
  readonly events: WatchEvent[];
  /** Resolves with the first event (seen or future) from index `from` that satisfies the predicate. */
  waitFor(predicate: (event: WatchEvent) => boolean, timeoutMs?: number, from?: number): Promise<WatchEvent>;
  /** Resolves when the server ends the stream; `error` is set when it ended abruptly. */
  readonly ended: Promise<{ error?: Error }>;
  close(): void;
}

export function openRawWatch(baseUrl: string, pathAndQuery: string): Promise<RawWatch> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${pathAndQuery}`, { headers: { Authorization: 'Bearer test-token' } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => resolve(readEvents(res, () => req.destroy())));
    req.end();
  });
}

function readEvents(res: IncomingMessage, destroy: () => void): RawWatch {
  const events: WatchEvent[] = [];
  const waiters = new Set<() => void>();
  let pending = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const text of lines) if (text.trim() !== '') events.push(JSON.parse(text) as WatchEvent);
    for (const wake of [...waiters]) wake();
  });
  const ended = new Promise<{ error?: Error }>((resolve) => {
    res.on('end', () => resolve({}));
    res.on('error', (error) => resolve({ error }));
    res.on('aborted', () => resolve({ error: new Error('aborted') }));
    res.on('close', () => resolve(res.complete ? {} : { error: new Error('closed before the response completed') }));
  });
  const waitFor = (predicate: (event: WatchEvent) => boolean, timeoutMs = 3000, from = 0): Promise<WatchEvent> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = events.slice(from).find(predicate);
        if (found === undefined) return false;
        waiters.delete(wake);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const wake = (): void => void check();
      const timer = setTimeout(() => {
        waiters.delete(wake);
        reject(new Error(`no matching watch event within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => e.type))}`));
      }, timeoutMs);
      if (!check()) waiters.add(wake);
    });
  return { status: res.statusCode ?? 0, events, waitFor, ended, close: destroy };
}
