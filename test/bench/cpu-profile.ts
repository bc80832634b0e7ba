/**
 * Summarises a V8 `.cpuprofile` (what `node --cpu-prof` writes) into the functions with the most self time, counting
 * only the samples of the profile's last `windowSeconds` (all of it by default: the bench records exactly the
 * measured scenario through the inspector).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTimeEntry {
  function: string;
  /** Share of the window's samples, 0..1. */
  share: number;
  selfMillis: number;
}

export interface ProfileSummary {
  windowSeconds: number;
  samples: number;
  top: SelfTimeEntry[];
}

/** Function and file; no line: under tsx the profile's lines are those of the transpiled module, not the source. */
function label(node: ProfileNode, root: string): string {
  const { functionName, url } = node.callFrame;
  const name = functionName || '(anonymous)';
  if (!url) return name;
  const local = url.replace(/^file:\/\//, '');
  const short = local.startsWith(root) ? local.slice(root.length).replace(/^\//, '') : local.replace(/^.*node_modules\//, 'node_modules/');
  return `${name} ${short}`;
}

export function summarizeProfile(profile: CpuProfile, lastSeconds = Number.POSITIVE_INFINITY, root = '', limit = 15): ProfileSummary {
  const windowSeconds = Math.min(lastSeconds, (profile.endTime - profile.startTime) / 1e6);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const cutoff = profile.endTime - windowSeconds * 1e6;
  const self = new Map<string, { samples: number; micros: number }>();
  let time = profile.startTime;
  let counted = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    time += delta;
    if (time <= cutoff) continue;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    const key = label(node, root);
    const entry = self.get(key) ?? { samples: 0, micros: 0 };
    entry.samples++;
    entry.micros += profile.timeDeltas[i + 1] ?? delta;
    self.set(key, entry);
    counted++;
  }
  const top = [...self.entries()]
    .sort((a, b) => b[1].samples - a[1].samples)
    .slice(0, limit)
    .map(([fn, e]) => ({ function: fn, share: counted > 0 ? e.samples / counted : 0, selfMillis: e.micros / 1000 }));
  return { windowSeconds, samples: counted, top };
}

export function readProfile(path: string): CpuProfile {
  return JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
}

export function renderProfile(summary: ProfileSummary, title: string): string {
  return [
    `**${title}** (self time over ${summary.windowSeconds.toFixed(1)} s, ${summary.samples} samples):`,
    '',
    '| function | self | ms |',
    '|---|---:|---:|',
    ...summary.top.map((e) => `| \`${e.function}\` | ${(e.share * 100).toFixed(1)}% | ${e.selfMillis.toFixed(0)} |`),
    '',
  ].join('\n');
}
