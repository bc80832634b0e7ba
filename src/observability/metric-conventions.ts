/** Every kube-ledger metric's name starts with this. */
export const METRIC_PREFIX = 'kube_ledger_';
