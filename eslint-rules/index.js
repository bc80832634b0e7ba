// The project's own lint rules, as a local ESLint plugin (eslint.config.js registers it as `kube-ledger`).
import noModuleState from './no-module-state.js';

export default {
  meta: { name: 'eslint-plugin-kube-ledger' },
  rules: { 'no-module-state': noModuleState },
};
