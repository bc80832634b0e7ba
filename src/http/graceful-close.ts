/**
 * Graceful stop for a Node http(s) server, in two steps. Draining (from SIGTERM): the server still accepts and serves,
 * but every reply carries `Connection: close`, so each client's next call opens a new connection, which the Service
 * sends to another replica once endpoints have dropped this one; idle connections are left alone (closing one while a
 * client sends on it would lose that call: kube-scheduler does not retry a POST). Closing: stop accepting, close idle
 * keep-alive sockets, let in-flight requests finish (their replies carry `Connection: close`), and destroy whatever
 * is left at the deadline.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { LiveList } from './live-list.js';

export interface GracefulCloser {
  startDraining(): void;
  close(deadlineMs: number): Promise<void>;
}

export function trackForGracefulClose(server: Server): GracefulCloser {
  let closing = false;
  let draining = false;
  const inFlight = new LiveList<ServerResponse>();
  let closed: Promise<void> | undefined;
  const sockets = openSockets(server);

  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    inFlight.add(response);
    if (closing || draining) askClientToClose(response);
    response.once('close', () => {
      inFlight.remove(response);
      // A keep-alive socket whose last request just finished is idle now: close it instead of waiting for it.
      if (closing) server.closeIdleConnections();
    });
  });

  const close = (deadlineMs: number): Promise<void> => {
    if (closed) return closed;
    closing = true;
    for (const response of inFlight) askClientToClose(response);
    closed = closeWithin(server, sockets, deadlineMs);
    return closed;
  };

  const startDraining = (): void => {
    draining = true;
    for (const response of inFlight) askClientToClose(response);
  };

  return { startDraining, close };
}

function askClientToClose(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('Connection', 'close');
}

/**
 * The server's open sockets, kept up to date. Raw sockets too: one still in its TLS handshake is not an http
 * connection yet, and would hold close() open.
 */
function openSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}

/** Stops accepting and closes idle sockets; resolves once the server has closed, destroying what is left at the deadline. */
function closeWithin(server: Server, sockets: ReadonlySet<Socket>, deadlineMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const deadline = setTimeout(() => {
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
    }, deadlineMs);
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}
