/**
 * The DeviceClasses the DRA ledger reads: what each selects (device-class.ts, cached per class) and which extended
 * resources DRA serves (DRAExtendedResource: `spec.extendedResourceName`, or the implicit
 * `deviceclass.resource.kubernetes.io/<class>` every class serves).
 */
import type { DeviceClassObject } from '../objects.js';
import { classSelection, type ClassSelection } from './device-class.js';

const IMPLICIT_CLASS_PREFIX = 'deviceclass.resource.kubernetes.io/';

export class DeviceClasses {
  private readonly classes = new Map<string, DeviceClassObject>();
  private readonly selections = new Map<string, ClassSelection>();
  /** Extended resource name → class serving it; rebuilt lazily after class changes. */
  private extended: Map<string, string> | undefined;

  upsert(deviceClass: DeviceClassObject): void {
    const name = deviceClass.metadata.name ?? '';
    this.classes.set(name, deviceClass);
    this.selections.delete(name);
    this.extended = undefined;
  }

  delete(name: string): void {
    this.classes.delete(name);
    this.selections.delete(name);
    this.extended = undefined;
  }

  replace(all: DeviceClassObject[]): void {
    this.classes.clear();
    this.selections.clear();
    this.extended = undefined;
    for (const d of all) this.classes.set(d.metadata.name ?? '', d);
  }

  selection(name: string | undefined): ClassSelection {
    if (name === undefined) return { expressions: [], known: false };
    let selection = this.selections.get(name);
    if (!selection) this.selections.set(name, (selection = classSelection(this.classes.get(name))));
    return selection;
  }

  servesExtendedResources(): boolean {
    return this.extendedMap().size > 0;
  }

  extendedResourceClass(resource: string): string | undefined {
    const named = this.extendedMap().get(resource);
    if (named !== undefined) return named;
    const implicit = resource.startsWith(IMPLICIT_CLASS_PREFIX) ? resource.slice(IMPLICIT_CLASS_PREFIX.length) : undefined;
    return implicit !== undefined && this.classes.has(implicit) ? implicit : undefined;
  }

  private extendedMap(): Map<string, string> {
    if (this.extended) return this.extended;
    const map = new Map<string, string>();
    // Several classes naming one resource: the first by name serves it (upstream picks one of them).
    for (const name of [...this.classes.keys()].sort()) {
      const resource = this.classes.get(name)!.spec?.extendedResourceName;
      if (resource && !map.has(resource)) map.set(resource, name);
    }
    return (this.extended = map);
  }
}
