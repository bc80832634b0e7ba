/** `npm run rules:generate`: writes deploy/monitoring/prometheus-rule.yaml from deploy/monitoring/rules.yml. */
import { writePrometheusRule } from './prometheus-rule.js';

writePrometheusRule();
console.log('wrote deploy/monitoring/prometheus-rule.yaml from deploy/monitoring/rules.yml');
