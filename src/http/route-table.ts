/**
 * Koa-side routing on the canonical path (request-target.ts): a route is an exact path in a table, read with GET (or
 * HEAD, which Koa answers without the body); anything else is 404 (no such path) or 405. The gates before it
 * (client certificate, debug switch) read the same path through `pathOf`, so none can be passed by spelling a path
 * another way.
 */
import type { Context, Next } from 'koa';
import { boundedText } from '../observability/bounded-text.js';
import { canonicalPath } from './request-target.js';
import { sendError } from './request-middleware.js';

export type RouteHandler = (ctx: Context) => void | Promise<void>;

interface PathState {
  canonicalPath?: string | null;
}

/** The request's canonical path (undefined when its target names none), worked out once per request. */
export function pathOf(ctx: Context): string | undefined {
  const state = ctx.state as PathState;
  if (state.canonicalPath === undefined) state.canonicalPath = canonicalPath(ctx.req.url) ?? null;
  return state.canonicalPath ?? undefined;
}

const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

export function serveRoutes(routes: ReadonlyMap<string, RouteHandler>) {
  return async function route(ctx: Context, _next: Next): Promise<void> {
    const path = pathOf(ctx);
    const handler = path === undefined ? undefined : routes.get(path);
    if (handler === undefined) return sendError(ctx, 404, `no route for ${ctx.method} ${boundedText(path ?? String(ctx.req.url))}`);
    if (!READ_METHODS.has(ctx.method)) {
      ctx.set('Allow', 'GET, HEAD');
      return sendError(ctx, 405, `method ${boundedText(ctx.method)} not allowed; allowed: GET, HEAD`);
    }
    await handler(ctx);
  };
}
