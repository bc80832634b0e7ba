/**
 * Small helpers for tests that run kube-ledger (or Prometheus) as child processes on loopback.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** Ports this process has handed out: the kernel may offer a just-closed port again, and a child given the same port
 * for both of its listeners refuses to start. */
const handedOut = new Set<number>();

/** A free loopback TCP port (bound then released), not handed out before by this process. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (;;) {
    const port = await anyFreePort(host);
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function anyFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Stops a child with SIGTERM, escalating to SIGKILL after `graceMs`; resolves once it has exited. */
export function stopper(child: ChildProcess, graceMs = 10_000): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
}
