/**
 * A lean loopback POST for the scheduler loop and the agreement check: node:http over a keep-alive agent, so the
 * client's own cost per call (which the loop counts in the extender's share) stays small and equal for every target.
 */
import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

export function postJson(baseUrl: string, path: string, body: string, timeoutMs = 30_000): Promise<unknown> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) reject(new Error(`${baseUrl}${path}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
        else {
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(new Error(`${baseUrl}${path}: reply is not JSON: ${(err as Error).message}`));
          }
        }
      });
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${baseUrl}${path}: no reply within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
