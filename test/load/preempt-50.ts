/**
 * k6: preempt with NodeNameToMetaVictims for 50 candidate nodes.
 * Run: k6 run -e BASE_URL=http://127.0.0.1:8888 -e PAYLOAD_DIR=$PWD/.tmp/k6 test/load/preempt-50.ts
 * Env: DURATION (default 60s), VUS (default 1), P99_MS (default 10), INSECURE_SKIP_TLS_VERIFY=true.
 */
import { extenderOptions, loadBodies, postNext } from './lib/extender.ts';

const bodies = loadBodies('preempt-50');

export const options = extenderOptions(1, 10);

export default function (): void {
  postNext('/preempt', bodies);
}
