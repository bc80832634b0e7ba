/**
 * The resource registry: every fact about a compute resource that a rule, a report or a gauge depends on, in one
 * place. Named resources are listed in `NAMED_RESOURCES`; every other name gets its facts from upstream's naming rules
 * (hugepages-*, attachable-volumes-*, domain-prefixed names). Adding a compute resource means one entry here; the fit
 * rule's reason order, the scoring kernel's scalar rule, the non-zero scoring defaults, the units of explain and the
 * ledger export, and the gauges all read it (test/ledger/resources.test.ts proves each reader).
 */

/** How amounts of the resource are counted in the ledger (integers): cpu in millicores, bytes, or plain counts. */
export type ResourceUnit = 'millicores' | 'bytes' | 'count';

export interface ResourceFacts {
  unit: ResourceUnit;
  /** upstream schedutil.IsScalarResourceName: left out of a score when the pod does not request it. */
  scalar: boolean;
  /** upstream v1helper.IsExtendedResourceName (plus DRA's implicit `deviceclass.resource.kubernetes.io/<class>`). */
  extended: boolean;
  /** KEP-5517: a DRA device may map capacity onto it (node-allocatable resources only, never extended ones). */
  draTarget: boolean;
  /** Position in upstream fitsRequest's report order (pods, cpu, memory, ephemeral-storage); others follow by name. */
  reportOrder: number;
  /**
   * The amount a container without a request counts for in scoring (upstream NonMissingContainerRequests, in ledger
   * units), or undefined when a missing request counts as zero.
   */
  nonZeroDefault: bigint | undefined;
}

/** Report order of every resource not listed in NAMED_RESOURCES. */
const LATER = 4;

/** The resources with facts of their own; anything else follows `factsByRule`. */
export const NAMED_RESOURCES: Readonly<Record<string, ResourceFacts>> = {
  pods: { unit: 'count', scalar: false, extended: false, draTarget: false, reportOrder: 0, nonZeroDefault: undefined },
  cpu: { unit: 'millicores', scalar: false, extended: false, draTarget: true, reportOrder: 1, nonZeroDefault: 100n },
  memory: { unit: 'bytes', scalar: false, extended: false, draTarget: true, reportOrder: 2, nonZeroDefault: 200n * 1024n * 1024n },
  'ephemeral-storage': { unit: 'bytes', scalar: false, extended: false, draTarget: true, reportOrder: 3, nonZeroDefault: undefined },
  storage: { unit: 'bytes', scalar: false, extended: false, draTarget: false, reportOrder: LATER, nonZeroDefault: undefined },
};

export const IMPLICIT_CLASS_PREFIX = 'deviceclass.resource.kubernetes.io/';
const HUGEPAGES_PREFIX = 'hugepages-';
const ATTACHABLE_VOLUMES_PREFIX = 'attachable-volumes-';

/** The facts of any resource name. */
export function resourceFacts(name: string): ResourceFacts {
  return namedFacts(name) ?? factsByRule(name);
}

/** The unit alone, without making an object (parsing and formatting ask it for every amount). */
export function resourceUnit(name: string): ResourceUnit {
  return namedFacts(name)?.unit ?? unitByRule(name);
}

function namedFacts(name: string): ResourceFacts | undefined {
  return Object.hasOwn(NAMED_RESOURCES, name) ? NAMED_RESOURCES[name] : undefined;
}

function unitByRule(name: string): ResourceUnit {
  return name.startsWith(HUGEPAGES_PREFIX) ? 'bytes' : 'count';
}

function factsByRule(name: string): ResourceFacts {
  const hugepages = name.startsWith(HUGEPAGES_PREFIX);
  return {
    unit: unitByRule(name),
    scalar: hugepages || name.startsWith(ATTACHABLE_VOLUMES_PREFIX) || name.includes('/'),
    extended: isExtended(name),
    draTarget: hugepages,
    reportOrder: LATER,
    nonZeroDefault: undefined,
  };
}

/** IsExtendedResourceName: not native (no `/`, or a kubernetes.io/ prefix) and not a quota `requests.` name. */
function isExtended(name: string): boolean {
  if (name.startsWith(IMPLICIT_CLASS_PREFIX)) return true;
  return name.includes('/') && !name.includes('kubernetes.io/') && !name.startsWith('requests.');
}

export function isExtendedResourceName(name: string): boolean {
  return resourceFacts(name).extended;
}

/** upstream fitsRequest's order: pods, cpu, memory, ephemeral-storage, then every other resource by name. */
export function compareResources(a: string, b: string): number {
  const ra = namedFacts(a)?.reportOrder ?? LATER;
  const rb = namedFacts(b)?.reportOrder ?? LATER;
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A ledger amount as a gauge shows it: cpu in cores, everything else in its own unit (floats, for dashboards). */
export function gaugeValue(name: string, amount: number): number {
  return resourceUnit(name) === 'millicores' ? amount / 1000 : amount;
}
