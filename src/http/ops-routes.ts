/**
 * Operator endpoints, never under the verb prefix, in two groups for two audiences and two listeners:
 * - `registerOpsRoutes`: GET /healthz, /readyz, /metrics on the operations port (kubelet probes, Prometheus);
 * - `registerDebugRoutes`: GET /debug/* on the extender port, mounted behind the `server.debug.enabled` switch
 *   (`debug-gate.ts`), because they show every tenant's pods, claims and devices. A new debug route goes here and is
 *   gated with the others without further wiring.
 */
import type Router from '@koa/router';
import type { Metrics } from '../observability/metrics.js';
import type { ExtenderService } from './extender-port.js';
import { HttpProblem } from './http-problem.js';
import { sendJson } from './request-middleware.js';
import { renderExplainText } from '../cli/explain-text.js';
import { renderLedgerText } from '../cli/ledger-text.js';

export interface OpsRouteDeps {
  service: ExtenderService;
  metrics: Metrics;
}

/** `NS/NAME` with both parts non-empty and no further slash. */
export function parsePodReference(value: unknown): { namespace: string; name: string } {
  const parts = typeof value === 'string' ? value.split('/') : [];
  const [namespace, name] = parts;
  if (parts.length !== 2 || !namespace || !name) {
    throw new HttpProblem(400, 'bad_request', 'query parameter "pod" must be NAMESPACE/NAME', { path: 'pod' });
  }
  return { namespace, name };
}

export function registerOpsRoutes(router: Router, deps: OpsRouteDeps): void {
  const { service, metrics } = deps;

  router.get('/healthz', (ctx) => sendJson(ctx, 200, { status: 'ok' }));

  router.get('/readyz', (ctx) => {
    const readiness = service.readiness();
    sendJson(ctx, readiness.ready ? 200 : 503, { ready: readiness.ready, reasons: readiness.reasons });
  });

  router.get('/metrics', async (ctx) => {
    const text = await metrics.registry.metrics();
    ctx.status = 200;
    ctx.type = metrics.registry.contentType;
    ctx.body = text;
  });
}

export function registerDebugRoutes(router: Router, deps: OpsRouteDeps): void {
  const { service } = deps;

  router.get('/debug/explain', (ctx) => {
    const { namespace, name } = parsePodReference(ctx.query['pod']);
    const report = service.explain(namespace, name);
    if (report === undefined) sendJson(ctx, 404, { error: `pod ${namespace}/${name} is not known` });
    else if (wantsText(ctx.query['format'])) sendText(ctx, renderExplainText(report));
    else sendJson(ctx, 200, report);
  });

  router.get('/debug/freshness', (ctx) => {
    const report = service.debugFreshness?.();
    if (report === undefined) sendJson(ctx, 404, { error: 'no freshness tracking for this cluster source (snapshot)' });
    else sendJson(ctx, 200, report);
  });

  router.get('/debug/ledger', (ctx) => {
    const node = ctx.query['node'];
    if (Array.isArray(node)) throw new HttpProblem(400, 'bad_request', 'query parameter "node" given more than once', { path: 'node' });
    const exported = service.exportLedger(node === undefined || node === '' ? undefined : node);
    if (exported === undefined) sendJson(ctx, 404, { error: `node ${node} is not known` });
    else if (wantsText(ctx.query['format'])) sendText(ctx, renderLedgerText(exported));
    else sendJson(ctx, 200, exported);
  });
}

/** `?format=text`: the table `kube-ledger explain|ledger` prints, for a person with curl; `json` (or none) the JSON. */
function wantsText(format: string | string[] | undefined): boolean {
  if (format === undefined || format === 'json') return false;
  if (format === 'text') return true;
  throw new HttpProblem(400, 'bad_request', 'query parameter "format" must be text or json', { path: 'format' });
}

function sendText(ctx: { status: number; type: string; body: unknown }, text: string): void {
  ctx.status = 200;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = text;
}
