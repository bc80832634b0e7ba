/**
 * Which driver a DeviceClass selects. kube-ledger does not evaluate CEL; it recognises the one pattern every DRA
 * driver's class uses, `device.driver == "name"`. Anything else is reported as not evaluated so estimates stay
 * conservative (largest footprint among candidate devices).
 */
import type { DeviceClassObject } from '../objects.js';

export interface ClassSelection {
  /** Undefined: the class does not pin a driver we can read, so every driver's devices are candidates. */
  driver?: string;
  /** False when some selector could not be evaluated (the estimate then takes the largest candidate footprint). */
  fullyEvaluated: boolean;
}

const DRIVER_ONLY = /^\s*device\.driver\s*==\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*$/;
const DRIVER_TERM = /device\.driver\s*==\s*(?:"([^"\\]*)"|'([^'\\]*)')/g;

export function classSelection(deviceClass: DeviceClassObject | undefined): ClassSelection {
  if (!deviceClass) return { fullyEvaluated: false };
  let driver: string | undefined;
  let fullyEvaluated = true;
  for (const selector of deviceClass.spec?.selectors ?? []) {
    const expression = selector.cel?.expression ?? '';
    const only = DRIVER_ONLY.exec(expression);
    if (only) {
      driver ??= only[1] ?? only[2];
      continue;
    }
    fullyEvaluated = false;
    const conjunctDriver = singleConjunctDriver(expression);
    if (conjunctDriver !== undefined) driver ??= conjunctDriver;
  }
  return { driver, fullyEvaluated };
}

/** `device.driver == "x" && ...`: the driver is pinned when it is the only driver term and there is no `||` or negation. */
function singleConjunctDriver(expression: string): string | undefined {
  if (expression.includes('||') || /!\s*\(/.test(expression)) return undefined;
  const terms = [...expression.matchAll(DRIVER_TERM)];
  if (terms.length !== 1) return undefined;
  return terms[0]![1] ?? terms[0]![2];
}
