/** `npm run metrics:generate`: writes docs/metrics.md from the metrics as the process defines them. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { METRICS_REFERENCE_FILE, currentMetricsReference } from './metrics-reference-file.js';

mkdirSync(dirname(METRICS_REFERENCE_FILE), { recursive: true });
writeFileSync(METRICS_REFERENCE_FILE, await currentMetricsReference());
console.log('wrote docs/metrics.md');
