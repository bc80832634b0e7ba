/**
 * The `server.debug.enabled` switch in front of every /debug/* route: when off, /debug/* answers 404 (as if the
 * routes did not exist, but saying why, so an operator and the explain CLI can tell "off" from "unknown pod"). The
 * switch is read on every request, so a live configuration change takes effect at once.
 */
import type { Context, Next } from 'koa';
import { sendError } from './request-middleware.js';

export const DEBUG_PATH_PREFIX = '/debug/';
export const DEBUG_DISABLED_MESSAGE = 'debug endpoints are disabled on this server (server.debug.enabled: true serves them)';

export function debugGate(isEnabled: () => boolean) {
  return async function gateDebug(ctx: Context, next: Next): Promise<void> {
    if (ctx.path.startsWith(DEBUG_PATH_PREFIX) && !isEnabled()) {
      ctx.set('X-Kube-Ledger-Debug', 'disabled');
      return sendError(ctx, 404, DEBUG_DISABLED_MESSAGE);
    }
    return next();
  };
}
