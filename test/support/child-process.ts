/**
 * Small helpers for tests that run kube-ledger (or Prometheus) as child processes on loopback.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A free loopback TCP port (bound then released). */
export function freePort(host = '127.0.0.1'): Promise<number> {
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
