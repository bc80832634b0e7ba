/**
 * One request with its request-target sent byte for byte (no client normalises it), over plain TCP or TLS, and the
 * status and body the server answered. Every exchange uses its own connection (Connection: close).
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

export interface RawReply {
  status: number;
  head: string;
  body: string;
}

export function rawRequest(port: number, method: string, target: string, options: { tls?: ConnectionOptions; body?: string } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const body = options.body ?? (method === 'POST' ? '{}' : '');
    const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
    if (body !== '' || method === 'POST') lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
    const text = `${lines.join('\r\n')}\r\n\r\n${body}`;
    const socket: Socket = options.tls
      ? tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options.tls }, () => socket.write(text))
      : tcpConnect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const split = received.indexOf('\r\n\r\n');
      const head = split < 0 ? received : received.slice(0, split);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body: split < 0 ? '' : received.slice(split + 4) });
    });
  });
}
