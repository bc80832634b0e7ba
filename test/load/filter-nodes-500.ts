/**
 * k6: filter with full Node objects of 500 nodes (not nodeCacheCapable).
 * Run: k6 run -e BASE_URL=http://127.0.0.1:8888 -e PAYLOAD_DIR=$PWD/.tmp/k6 test/load/filter-nodes-500.ts
 * Env: DURATION (default 60s), VUS (default 1), P99_MS (default 100), INSECURE_SKIP_TLS_VERIFY=true.
 */
import { extenderOptions, loadBodies, postNext } from './lib/extender.ts';

const bodies = loadBodies('filter-nodes-500');

export const options = extenderOptions(1, 100);

export default function (): void {
  postNext('/filter', bodies);
}
