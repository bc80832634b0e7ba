/**
 * Which pod volumes a scheduler filter reads (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone): every
 * source except configuration, scratch space, node paths and images. One rule, read by the trim (what cached pods
 * keep) and by preemption (whether a victim's volumes may matter to the preemptor).
 */
import type { Volume } from './objects.js';

const NON_STORAGE_SOURCES: ReadonlySet<string> = new Set(['name', 'configMap', 'secret', 'downwardAPI', 'projected', 'emptyDir', 'hostPath', 'image']);

/** The volume's source key when it is a storage volume (e.g. `persistentVolumeClaim`, `csi`, `ephemeral`). */
export function storageSourceOf(volume: Volume): string | undefined {
  return Object.keys(volume).find((k) => !NON_STORAGE_SOURCES.has(k));
}
