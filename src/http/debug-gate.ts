/**
 * The `server.debug.enabled` switch in front of every /debug path: when off, /debug and everything under it answers
 * 404 (as if the routes did not exist, but saying why, so an operator and the explain CLI can tell "off" from "unknown
 * pod"). It reads the canonical path the routes are matched on (route-table.ts), whatever the method. The switch is
 * read on every request, so a live configuration change takes effect at once.
 */
import type { Context, Next } from 'koa';
import { sendError } from './request-middleware.js';
import { pathOf } from './route-table.js';

export const DEBUG_PATH_PREFIX = '/debug/';
export const DEBUG_DISABLED_MESSAGE = 'debug endpoints are disabled on this server (server.debug.enabled: true serves them)';

export function isDebugPath(path: string | undefined): boolean {
  return path !== undefined && (path === '/debug' || path.startsWith(DEBUG_PATH_PREFIX));
}

export function debugGate(isEnabled: () => boolean) {
  return async function gateDebug(ctx: Context, next: Next): Promise<void> {
    if (isDebugPath(pathOf(ctx)) && !isEnabled()) {
      ctx.set('X-Kube-Ledger-Debug', 'disabled');
      return sendError(ctx, 404, DEBUG_DISABLED_MESSAGE);
    }
    return next();
  };
}
