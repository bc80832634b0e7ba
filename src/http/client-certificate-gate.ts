/**
 * mTLS enforced per path: the extender verbs and /debug need a client certificate signed by the configured client CA
 * (what kube-scheduler's `tlsConfig.certFile/keyFile` present); /healthz, /readyz and /metrics stay open so kubelet
 * probes and Prometheus work without client certificates. Refusals are 403 with a JSON body.
 */
import type { Context, Next } from 'koa';
import type { TLSSocket } from 'node:tls';
import { sendError } from './request-middleware.js';

const OPEN_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export function clientCertificateGate() {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (OPEN_PATHS.has(ctx.path)) return next();
    const socket = ctx.req.socket as TLSSocket;
    if (socket.authorized === true) return next();
    const why = socket.authorizationError ? String(socket.authorizationError) : 'no client certificate presented';
    sendError(ctx, 403, `client certificate required (signed by server.tls.clientCAFile): ${why}`);
  };
}
