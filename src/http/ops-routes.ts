/** GET /healthz, /readyz, /metrics, /debug/explain, /debug/ledger: operator endpoints, never under the verb prefix. */
import type Router from '@koa/router';
import type { Metrics } from '../observability/metrics.js';
import type { ExtenderService } from './extender-service.js';
import { HttpProblem } from './http-problem.js';
import { sendJson } from './request-middleware.js';

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

  router.get('/debug/explain', (ctx) => {
    const { namespace, name } = parsePodReference(ctx.query['pod']);
    const report = service.explain(namespace, name);
    if (report === undefined) sendJson(ctx, 404, { error: `pod ${namespace}/${name} is not known` });
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
    else sendJson(ctx, 200, exported);
  });
}
