/**
 * A refused request (413) is still answered: its reply carries `Connection: close`, and Node then closes the socket
 * as soon as the reply is written. If the client is still sending its body, those bytes arrive at a closed socket,
 * the kernel answers with a reset, and the client sees EPIPE/ECONNRESET — often before it has read the 413.
 *
 * Instead, the way web servers do "lingering close": half-close (FIN after the reply), keep reading and dropping
 * what the client still sends up to `maxBytes`, then stop reading (TCP back-pressure stalls the writer at no cost to
 * us), and destroy the socket when the client closes its side or after `maxMs` at the latest — so a slow or
 * endless writer holds the connection for a bounded time only.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface LingerBounds {
  /** Body bytes read and dropped after the refusal; beyond them the socket is no longer read. */
  maxBytes: number;
  /** The socket is destroyed this long after the reply at the latest. */
  maxMs: number;
}

/**
 * Go's net/http server discards up to 256 KiB of an unread body and then waits 500 ms after its FIN before closing
 * (`rstAvoidanceDelay`). A little more of both here: 1 MiB lets a client that writes its whole body before reading
 * finish a body up to ~1 MiB (plus socket buffers) past the limit, and 2 s leaves a client on a busy machine time to
 * read the reply; the bytes past that are never read, and the connection is gone 2 s after the reply at the latest.
 */
export const DEFAULT_LINGER: LingerBounds = Object.freeze({ maxBytes: 1024 * 1024, maxMs: 2_000 });

/** Node's http server calls `socket.destroySoon()` after a reply marked `Connection: close` (`_http_server.js`). */
type ClosableSocket = Socket & { destroySoon?: () => void };

/** Call before the reply is sent; the reply must carry `Connection: close`. */
export function lingerAfterReply(request: IncomingMessage, bounds: LingerBounds = DEFAULT_LINGER): void {
  const socket = request.socket as ClosableSocket;
  let dropped = 0;
  const drop = (chunk: Buffer): void => {
    dropped += chunk.length;
    if (dropped > bounds.maxBytes) {
      request.off('data', drop);
      // Pausing the socket alone does not hold: a flowing request calls its _read for more, and that resumes the
      // socket (Node's readStart). Paused, the request buffers one high-water mark and then stops the socket for good.
      request.pause();
      socket.pause();
    }
  };
  request.on('data', drop);
  request.resume();

  socket.destroySoon = () => {
    socket.end(); // FIN once the reply is flushed: the client reads the whole reply, then end of stream
    const deadline = setTimeout(() => socket.destroy(), bounds.maxMs);
    deadline.unref();
    socket.once('close', () => clearTimeout(deadline));
  };
}
