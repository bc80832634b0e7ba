/**
 * Operator endpoints, never under the verb prefix, in two tables for two audiences and two listeners (matched exactly
 * on the canonical path: route-table.ts):
 * - `opsRoutes`: GET /healthz, /readyz, /metrics on the operations port (kubelet probes, Prometheus);
 * - `debugRoutes`: GET /debug/* on the extender port, behind the `server.debug.enabled` switch (`debug-gate.ts`),
 *   because they show every tenant's pods, claims and devices. A new debug route goes here and is gated with the
 *   others without further wiring.
 */
import type { Context } from 'koa';
import type { Metrics } from '../observability/metrics.js';
import { boundedText } from '../observability/bounded-text.js';
import type { ExtenderService } from './extender-port.js';
import { HttpProblem } from './http-problem.js';
import { sendJson } from './request-middleware.js';
import { renderExplainText } from '../cli/explain-text.js';
import { renderLedgerText } from '../cli/ledger-text.js';
import type { RouteHandler } from './route-table.js';

export interface OpsRouteDeps {
  service: ExtenderService;
  metrics: Metrics;
  /** Set from SIGTERM on: /readyz answers 503 so endpoints stop sending calls while the verbs are still served. */
  draining?: () => boolean;
}

export const DRAINING_REASON = 'shutting down: draining (the verbs are still served until the listeners close)';

/** `NS/NAME` with both parts non-empty and no further slash. */
export function parsePodReference(value: unknown): { namespace: string; name: string } {
  const parts = typeof value === 'string' ? value.split('/') : [];
  const [namespace, name] = parts;
  if (parts.length !== 2 || !namespace || !name) {
    throw new HttpProblem(400, 'bad_request', 'query parameter "pod" must be NAMESPACE/NAME', { path: 'pod' });
  }
  return { namespace, name };
}

export function opsRoutes(deps: OpsRouteDeps): ReadonlyMap<string, RouteHandler> {
  const { service, metrics } = deps;
  return new Map<string, RouteHandler>([
    ['/healthz', (ctx) => sendJson(ctx, 200, { status: 'ok' })],
    ['/readyz', (ctx) => {
      const readiness = service.readiness();
      if (deps.draining?.()) sendJson(ctx, 503, { ready: false, reasons: [DRAINING_REASON, ...readiness.reasons] });
      else sendJson(ctx, readiness.ready ? 200 : 503, { ready: readiness.ready, reasons: readiness.reasons });
    }],
    ['/metrics', async (ctx) => {
      const text = await metrics.registry.metrics();
      ctx.status = 200;
      ctx.type = metrics.registry.contentType;
      ctx.body = text;
    }],
  ]);
}

export function debugRoutes(deps: OpsRouteDeps): ReadonlyMap<string, RouteHandler> {
  const { service } = deps;
  return new Map<string, RouteHandler>([
    ['/debug/explain', (ctx) => {
      const { namespace, name } = parsePodReference(ctx.query['pod']);
      const report = service.explain(namespace, name);
      if (report === undefined) sendJson(ctx, 404, { error: `pod ${boundedText(`${namespace}/${name}`)} is not known` });
      else if (wantsText(ctx.query['format'])) sendText(ctx, renderExplainText(report));
      else sendJson(ctx, 200, report);
    }],
    ['/debug/freshness', (ctx) => {
      const report = service.debugFreshness?.();
      if (report === undefined) sendJson(ctx, 404, { error: 'no freshness tracking for this cluster source (snapshot)' });
      else sendJson(ctx, 200, report);
    }],
    ['/debug/ledger', (ctx) => {
      const node = ctx.query['node'];
      if (Array.isArray(node)) throw new HttpProblem(400, 'bad_request', 'query parameter "node" given more than once', { path: 'node' });
      const exported = service.exportLedger(node === undefined || node === '' ? undefined : node);
      if (exported === undefined) sendJson(ctx, 404, { error: `node ${boundedText(String(node))} is not known` });
      else if (wantsText(ctx.query['format'])) sendText(ctx, renderLedgerText(exported));
      else sendJson(ctx, 200, exported);
    }],
  ]);
}

/** `?format=text`: the table `kube-ledger explain|ledger` prints, for a person with curl; `json` (or none) the JSON. */
function wantsText(format: string | string[] | undefined): boolean {
  if (format === undefined || format === 'json') return false;
  if (format === 'text') return true;
  throw new HttpProblem(400, 'bad_request', 'query parameter "format" must be text or json', { path: 'format' });
}

function sendText(ctx: Context, text: string): void {
  ctx.status = 200;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = text;
}
