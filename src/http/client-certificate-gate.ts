/**
 * mTLS enforced per listener and path: on the extender port every request (verbs and /debug) needs a client
 * certificate signed by the configured client CA (what kube-scheduler's `tlsConfig.certFile/keyFile` present); on the
 * operations port /healthz and /readyz stay open for kubelet probes (which present none) while /metrics needs one.
 * Refusals are 403 with a JSON body. Open paths are matched on the canonical path (request-target.ts), exactly.
 */
import type { Context, Next } from 'koa';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { sendError } from './request-middleware.js';
import { pathOf } from './route-table.js';

/** Paths of the operations port that kubelet probes reach without a client certificate. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

export const EXTENDER_CA_SETTING = 'server.tls.clientCAFile';

/** Why the request's connection has no verified client certificate (the 403 message), or undefined when it has one. */
export function certificateRefusal(request: IncomingMessage, caSetting = EXTENDER_CA_SETTING): string | undefined {
  const socket = request.socket as TLSSocket;
  if (socket.authorized === true) return undefined;
  const why = socket.authorizationError ? String(socket.authorizationError) : 'no client certificate presented';
  return `client certificate required (signed by ${caSetting}): ${why}`;
}

export function clientCertificateGate(openPaths: ReadonlySet<string> = new Set(), caSetting = EXTENDER_CA_SETTING) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const path = pathOf(ctx);
    if (path !== undefined && openPaths.has(path)) return next();
    const refusal = certificateRefusal(ctx.req, caSetting);
    if (refusal === undefined) return next();
    sendError(ctx, 403, refusal);
  };
}
