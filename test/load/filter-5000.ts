/**
 * k6: filter with NodeNames of 5000 nodes, four requests in flight.
 * Run: k6 run -e BASE_URL=http://127.0.0.1:8888 -e PAYLOAD_DIR=$PWD/.tmp/k6 test/load/filter-5000.ts
 * Env: DURATION (default 60s), VUS (default 4), P99_MS (default 50), INSECURE_SKIP_TLS_VERIFY=true.
 */
import { extenderOptions, loadBodies, postNext } from './lib/extender.ts';

const bodies = loadBodies('filter-5000');

export const options = extenderOptions(4, 50);

export default function (): void {
  postNext('/filter', bodies);
}
