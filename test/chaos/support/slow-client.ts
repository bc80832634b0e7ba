/**
 * Raw-socket clients that misbehave in time or size: one that trickles bytes (slow loris: headers or body), and one
 * that streams a chunked upload without end. Both report what the server sent and when it hung up.
 */
import { connect, type Socket } from 'node:net';
import { HOST } from './ledger-child.js';

export interface SocketOutcome {
  /** Milliseconds from connect until the server closed the connection. */
  closedAfterMs: number;
  bytesSent: number;
  reply: string;
}

function collect(socket: Socket, started: number, sent: () => number, safetyMs: number, onClose: () => void): Promise<SocketOutcome> {
  let reply = '';
  socket.on('data', (chunk: Buffer) => (reply += chunk.toString('latin1')));
  return new Promise((resolve, reject) => {
    const safety = setTimeout(() => {
      socket.destroy();
      reject(new Error(`server kept the connection open for ${safetyMs} ms; reply so far: ${reply.slice(0, 200)}`));
    }, safetyMs);
    socket.on('error', () => {}); // EPIPE/ECONNRESET after the server hangs up are the expected end
    socket.on('close', () => {
      clearTimeout(safety);
      onClose();
      resolve({ closedAfterMs: performance.now() - started, bytesSent: sent(), reply });
    });
  });
}

/** Sends the first `burstBytes` of `text` at once, then one byte every `intervalMs`, until the server hangs up. */
export function trickle(port: number, text: string, intervalMs: number, burstBytes = 1, safetyMs = 15_000): Promise<SocketOutcome> {
  const socket = connect(port, HOST);
  const started = performance.now();
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= text.length || socket.destroyed) return;
    socket.write(text[sent]!);
    sent += 1;
  }, intervalMs);
  socket.once('connect', () => {
    socket.write(text.slice(0, burstBytes));
    sent = burstBytes;
  });
  return collect(socket, started, () => sent, safetyMs, () => clearInterval(timer));
}

/**
 * Sends `head` (request line and headers, chunked framing) and then chunks of `chunkBytes` for as long as the socket
 * takes them, up to `maxBytes`; resolves when the server closes the connection.
 */
export function endlessChunkedUpload(port: number, head: string, chunkBytes: number, maxBytes: number, safetyMs = 15_000): Promise<SocketOutcome> {
  const socket = connect(port, HOST);
  const started = performance.now();
  let sent = 0;
  const chunk = Buffer.concat([Buffer.from(`${chunkBytes.toString(16)}\r\n`), Buffer.alloc(chunkBytes, 0x20), Buffer.from('\r\n')]);
  let answered = false;
  socket.once('data', () => (answered = true)); // a real client stops sending once the server has answered
  const pump = (): void => {
    while (!socket.destroyed && !answered && sent < maxBytes) {
      sent += chunkBytes;
      if (!socket.write(chunk)) {
        socket.once('drain', pump);
        return;
      }
    }
  };
  socket.once('connect', () => {
    socket.write(head);
    pump();
  });
  return collect(socket, started, () => sent, safetyMs, () => {});
}
