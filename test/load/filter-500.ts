/**
 * k6: filter with NodeNames of 500 nodes (nodeCacheCapable), one scheduler in flight.
 * Run: k6 run -e BASE_URL=http://127.0.0.1:8888 -e PAYLOAD_DIR=$PWD/.tmp/k6 test/load/filter-500.ts
 * Env: DURATION (default 60s), VUS (default 1), P99_MS (default 5), INSECURE_SKIP_TLS_VERIFY=true.
 */
import { extenderOptions, loadBodies, postNext } from './lib/extender.ts';

const bodies = loadBodies('filter-500');

export const options = extenderOptions(1, 5);

export default function (): void {
  postNext('/filter', bodies);
}
