// Types for the rule's tests, which import the plain-JavaScript rule that ESLint loads.
import type { Rule } from 'eslint';

declare const noModuleState: Rule.RuleModule;
export default noModuleState;
