/**
 * Minimal discovery documents (/version, /api, /apis, /api/v1, /apis/{group}/{version}) listing what the fake serves.
 */
import { apiVersionOf, RESOURCE_TYPES, type ResourceType } from './resources.js';

const VERBS_WITH_WATCH = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

export const VERSION_INFO = {
  major: '1', minor: '36', gitVersion: 'v1.36.3-fake', gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean', buildDate: '2026-01-01T00:00:00Z', goVersion: 'go1.25.0', compiler: 'gc', platform: 'linux/amd64',
};

function groups(): Map<string, ResourceType[]> {
  const byGroup = new Map<string, ResourceType[]>();
  for (const type of RESOURCE_TYPES) byGroup.set(type.group, [...(byGroup.get(type.group) ?? []), type]);
  return byGroup;
}

export function coreVersions(serverAddress: string): unknown {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function groupList(): unknown {
  const list = [...groups().entries()].filter(([group]) => group !== '').map(([group, types]) => {
    const version = { groupVersion: apiVersionOf(types[0] as ResourceType), version: (types[0] as ResourceType).version };
    return { name: group, versions: [version], preferredVersion: version };
  });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: list };
}

/** The APIResourceList for one group/version, or undefined when the fake serves nothing there. */
export function resourceList(group: string, version: string): unknown {
  const types = RESOURCE_TYPES.filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  const resources = types.flatMap((t) => {
    const main = { name: t.resource, singularName: t.kind.toLowerCase(), namespaced: t.namespaced, kind: t.kind, verbs: VERBS_WITH_WATCH };
    const status = t.hasStatus ? [{ name: `${t.resource}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] }] : [];
    const binding = t.resource === 'pods' && t.group === '' ? [{ name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] }] : [];
    return [main, ...status, ...binding];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources };
}
