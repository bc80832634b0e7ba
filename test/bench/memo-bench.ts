/**
 * Micro-benchmark behind the choice of lru-cache for the bounded parse memos (docs/performance.md "Bounded caches"): the quantity
 * memo is on the request path (every pod's requests are parsed per call), so a bounded LRU must not cost that path
 * noticeably more than the plain Map it replaces. Not a test: run it by hand on a quiet machine with
 * `npm run bench:memo` and read the figures. The lookup mix is every quantity string of the bench's synthetic
 * cluster (bound and pending pods, requests and limits) in the order a full pass reads them.
 *
 * Measured per lookup: the hit path alone (Map.get vs LRUCache.get), the whole memoised parse (get, and on a miss
 * parse + set), and, for scale, one `effectivePodRequests` call per pod. A churn case feeds more distinct strings than
 * the bound, where the Map is dropped whole and the LRU evicts one entry at a time.
 */
import { LRUCache } from 'lru-cache';
import { ClearingMemo } from '../../src/ledger/clearing-memo.js';
import { effectivePodRequests } from '../../src/ledger/pod-requests.js';
import type { PodObject } from '../../src/ledger/objects.js';
import { parseQuantity, toScaledCeil } from '../../src/ledger/quantity.js';
import { generateCluster } from './synthetic-cluster.js';

const BOUND = 4096;
const ROUNDS = Number(process.env['MEMO_BENCH_ROUNDS'] ?? 15);

interface Memo {
  get(text: string): bigint | undefined;
  set(text: string, nanos: bigint): void;
}

/** The memo the request path uses (src/ledger/clearing-memo.ts): a Map dropped whole when full. */
function clearWhenFullMap(bound: number): Memo {
  const memo = new ClearingMemo<string, bigint>(bound);
  return { get: (text) => memo.get(text), set: (text, nanos) => void memo.remember(text, nanos) };
}

function lru(bound: number): Memo {
  const cache = new LRUCache<string, bigint>({ max: bound });
  return { get: (text) => cache.get(text), set: (text, nanos) => void cache.set(text, nanos) };
}

function parseNanos(text: string): bigint {
  return toScaledCeil(parseQuantity(text), 9);
}

function memoised(memo: Memo, text: string): bigint {
  let nanos = memo.get(text);
  if (nanos === undefined) {
    nanos = parseNanos(text);
    memo.set(text, nanos);
  }
  return nanos;
}

function quantityStrings(pods: readonly PodObject[]): string[] {
  const out: string[] = [];
  for (const pod of pods) {
    for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
      for (const list of [container.resources?.requests, container.resources?.limits]) {
        for (const value of Object.values(list ?? {})) out.push(String(value));
      }
    }
  }
  return out;
}

function timeNs(run: () => unknown): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const WARM_UP_ROUNDS = 5;

/**
 * Map and LRUCache passes alternate round by round (after WARM_UP_ROUNDS each, so the optimising compiler has settled
 * before the first measured case), and a load change on a shared machine hits both alike; the ratio is the median of
 * the per-round ratios.
 */
function compare(label: string, items: number, runMap: () => unknown, runLru: () => unknown): void {
  const map: number[] = [];
  const lruNs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS + WARM_UP_ROUNDS; round++) {
    const a = timeNs(runMap) / items;
    const b = timeNs(runLru) / items;
    if (round < WARM_UP_ROUNDS) continue;
    map.push(a);
    lruNs.push(b);
    ratios.push(b / a);
  }
  console.log(
    `${label.padEnd(44)} Map ${median(map).toFixed(1).padStart(7)} ns   LRUCache ${median(lruNs).toFixed(1).padStart(7)} ns   LRU/Map ×${median(ratios).toFixed(2)}`,
  );
}

function nsPerItem(items: number, run: () => unknown): number {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS + WARM_UP_ROUNDS; round++) {
    const elapsed = timeNs(run) / items;
    if (round >= WARM_UP_ROUNDS) samples.push(elapsed);
  }
  return median(samples);
}

const cluster = generateCluster({ nodes: 500, podsPerNode: 20, seed: 7, pendingPods: 1000 });
const pods = cluster.objects.filter((o): o is PodObject => (o as { kind?: string }).kind === 'Pod');
// Through JSON text and back, as the strings arrive on the wire (flat heap strings, not the generator's concatenations).
const texts = JSON.parse(JSON.stringify(quantityStrings(pods))) as string[];
const distinct = new Set(texts).size;
console.log(`lookups per pass: ${texts.length} quantity strings of ${pods.length} pods, ${distinct} distinct; bound ${BOUND}; ${ROUNDS} rounds, median`);

/** Counts results instead of folding bigints (a bigint XOR allocates, and would dwarf a lookup). */
let sink = 0;
// Large enough to hold every distinct string, so the warm passes below measure hits only.
const warmMap = clearWhenFullMap(4 * distinct);
const warmLru = lru(4 * distinct);
for (const text of texts) {
  memoised(warmMap, text);
  memoised(warmLru, text);
}
compare('hit path (get only, memo warm)', texts.length, () => {
  for (const text of texts) sink += warmMap.get(text) === undefined ? 0 : 1;
}, () => {
  for (const text of texts) sink += warmLru.get(text) === undefined ? 0 : 1;
});
compare('memoised parse, memo warm', texts.length, () => {
  for (const text of texts) sink += memoised(warmMap, text) === 0n ? 0 : 1;
}, () => {
  for (const text of texts) sink += memoised(warmLru, text) === 0n ? 0 : 1;
});
const boundedMap = clearWhenFullMap(BOUND);
const boundedLru = lru(BOUND);
compare(`memoised parse, bound ${BOUND}, steady state`, texts.length, () => {
  for (const text of texts) sink += memoised(boundedMap, text) === 0n ? 0 : 1;
}, () => {
  for (const text of texts) sink += memoised(boundedLru, text) === 0n ? 0 : 1;
});

// Common strings (the 200 most frequent) interleaved with a stream of one-off strings, 3 × the bound of them.
const byFrequency = new Map<string, number>();
for (const text of texts) byFrequency.set(text, (byFrequency.get(text) ?? 0) + 1);
const common = [...byFrequency].sort((a, b) => b[1] - a[1]).slice(0, 200).map(([text]) => text);
const oneOff = Array.from({ length: 3 * BOUND }, (_, i) => `${i + 1}Ki`);
const skewed = Array.from({ length: 4 * oneOff.length }, (_, i) => (i % 4 === 0 ? oneOff[i / 4]! : common[i % common.length]!));
const skewedMap = clearWhenFullMap(BOUND);
const skewedLru = lru(BOUND);
compare(`memoised parse, common + one-off, bound ${BOUND}`, skewed.length, () => {
  for (const text of skewed) sink += memoised(skewedMap, text) === 0n ? 0 : 1;
}, () => {
  for (const text of skewed) sink += memoised(skewedLru, text) === 0n ? 0 : 1;
});

const parseOnly = nsPerItem(texts.length, () => {
  for (const text of texts) sink += parseNanos(text) === 0n ? 0 : 1;
});
const perPod = nsPerItem(pods.length, () => {
  for (const pod of pods) sink += effectivePodRequests(pod).size;
});
console.log(`for scale: parseQuantity + toScaledCeil without memo ${parseOnly.toFixed(1)} ns per string; effectivePodRequests ${perPod.toFixed(0)} ns per pod (${(texts.length / pods.length).toFixed(1)} strings per pod)`);
if (sink < 0) console.log('unreachable');
