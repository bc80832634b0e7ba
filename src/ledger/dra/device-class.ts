/**
 * What a DeviceClass selects: its CEL expressions (evaluated per device by device-cel.ts) and, when one of them pins
 * it, the driver (`device.driver == "name"`, alone or in a conjunction), which lets callers narrow candidates to one
 * driver's devices and tell whether that driver's devices are all node-local.
 */
import type { DeviceClassObject } from '../objects.js';

export interface ClassSelection {
  /** Undefined: the class does not pin a driver we can read, so every driver's devices are candidates. */
  driver?: string;
  /** The class's CEL selector expressions (all must hold); empty for an unknown class. */
  expressions: string[];
  /** False for a class kube-ledger does not know (every device is a candidate then). */
  known: boolean;
}

const DRIVER_ONLY = /^\s*device\.driver\s*==\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*$/;
const DRIVER_TERM = /device\.driver\s*==\s*(?:"([^"\\]*)"|'([^'\\]*)')/g;

export function classSelection(deviceClass: DeviceClassObject | undefined): ClassSelection {
  if (!deviceClass) return { expressions: [], known: false };
  let driver: string | undefined;
  const expressions: string[] = [];
  for (const selector of deviceClass.spec?.selectors ?? []) {
    const expression = selector.cel?.expression;
    if (expression === undefined) continue;
    const only = DRIVER_ONLY.exec(expression);
    // `device.driver == "x"` alone is applied as the driver filter; evaluating it per device would add nothing.
    if (only && (driver === undefined || driver === (only[1] ?? only[2]))) {
      driver = only[1] ?? only[2];
      continue;
    }
    expressions.push(expression);
    driver ??= only ? (only[1] ?? only[2]) : singleConjunctDriver(expression);
  }
  return { driver, expressions, known: true };
}

/** `device.driver == "x" && ...`: the driver is pinned when it is the only driver term and there is no `||` or negation. */
function singleConjunctDriver(expression: string): string | undefined {
  if (expression.includes('||') || /!\s*\(/.test(expression)) return undefined;
  const terms = [...expression.matchAll(DRIVER_TERM)];
  if (terms.length !== 1) return undefined;
  return terms[0]![1] ?? terms[0]![2];
}
