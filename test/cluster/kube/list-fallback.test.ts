/**
 * The unpaginated list after a continue token expired mid-list (client-go's pager, FullListIfExpired), through the
 * fake API server: it is the whole resource in one answer, so it is parsed as it arrives (streamed-list.ts), in
 * event-loop slices, holding one parser window and a chunk at a time, never the body (a million pods are ~2.4 GB of
 * JSON). What it offers equals what a paged list offers; what it holds at once is the reader's own accounting
 * (`onWholeListRead`), bounded however large the body; and the list's byte bound stops it early.
 */
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiClient } from '../../../src/cluster/kube/api-client.js';
import { EventLoopSlices } from '../../../src/cluster/event-loop-slices.js';
import { ByteBudget, ListBoundError } from '../../../src/cluster/kube/list-bounds.js';
import { readPagedList } from '../../../src/cluster/kube/paged-list.js';
import { kubeResource } from '../../../src/cluster/kube/resources.js';
import { STREAMED_LIST_WINDOW_BYTES, type StreamedListReport } from '../../../src/cluster/kube/streamed-list.js';
import { startFakeApiServer, type FakeApiServer } from '../../support/fake-apiserver/index.js';
import { pod } from '../../support/builders.js';

const PODS = 3000;
/** Each pod ~2 KB on the wire: the whole list is ~6 MB, several times the parser's window. */
const NOTE = 'x'.repeat(1800);
const MIB = 1024 * 1024;

interface Listing {
  names: string[];
  expired: number;
  report: StreamedListReport | undefined;
  slices: EventLoopSlices;
}

async function list(api: FakeApiServer, maxBytes = 1024 * MIB): Promise<Listing> {
  // A slice of 0 ms: the reading lets the event loop run between every two steps (counted in `pauses`).
  const listing: Listing = { names: [], expired: 0, report: undefined, slices: new EventLoopSlices(0) };
  await listInto(listing, api, maxBytes);
  return listing;
}

async function listInto(listing: Listing, api: FakeApiServer, maxBytes: number): Promise<void> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(api.kubeconfigFile());
  const resource = kubeResource('Pod');
  await readPagedList({
    resource,
    client: new KubeApiClient(kubeConfig),
    pageSize: 500,
    pageTimeoutMs: 30_000,
    bounds: { maxPages: 1000, maxBytes, maxSeconds: 60 },
    budget: new ByteBudget(maxBytes, `list ${resource.collectionPath}`),
    slices: listing.slices,
    take: (item) => listing.names.push(`${(item as { metadata: { name: string; resourceVersion: string } }).metadata.name}`),
    onPageExpired: () => listing.expired++,
    restart: () => { listing.names = []; },
    onWholeListRead: (report) => { listing.report = report; },
  }, new AbortController().signal);
}

describe('the unpaginated list after an expired continue token, parsed as it arrives (fake API server)', () => {
  let api: FakeApiServer;
  before(async function () {
    this.timeout(30_000);
    api = await startFakeApiServer();
    for (let i = 0; i < PODS; i++) api.create(pod('default', `p${String(i).padStart(4, '0')}`, { node: 'n1', cpu: '1m', annotations: { note: NOTE } }));
  });
  after(() => api.close());
  afterEach(() => api.always410('pods', false));

  it('offers the same pods, in the same order, as the paged list', async function () {
    this.timeout(30_000);
    const paged = await list(api);
    assert.equal(paged.expired, 0);
    assert.equal(paged.names.length, PODS);
    // Every continue token expires: page 1 is answered, page 2 is a 410, then one list without a limit.
    api.always410('pods', true);
    const since = api.requests().length;
    const whole = await list(api);
    assert.equal(whole.expired, 1);
    assert.deepEqual(whole.names, paged.names, 'the same pods in the same order, page 1\'s not twice');
    const lists = api.requests().slice(since).filter((r) => r.info.verb === 'list');
    assert.deepEqual(lists.map((r) => [r.query['limit'], 'continue' in r.query, r.status]), [['500', false, 200], ['500', true, 410], [undefined, false, 200]]);
  });

  it('holds one window and a chunk at a time however large the body, and lets the event loop run while it parses', async function () {
    this.timeout(30_000);
    api.always410('pods', true);
    const whole = await list(api);
    const report = whole.report!;
    assert.ok(report.bytes > 5 * MIB, `the whole list is ${report.bytes} bytes`);
    assert.ok(report.peakHeldBytes <= STREAMED_LIST_WINDOW_BYTES + 256 * 1024, `held at most ${report.peakHeldBytes} bytes at once`);
    assert.ok(whole.slices.pauses > 100, `the event loop ran ${whole.slices.pauses} times during the lists`);
  });

  it('stops at the list\'s byte bound without reading the rest of the body', async function () {
    this.timeout(30_000);
    api.always410('pods', true);
    const bound = 3 * MIB;
    const listing: Listing = { names: [], expired: 0, report: undefined, slices: new EventLoopSlices() };
    const failed = await listInto(listing, api, bound).then(() => undefined, (err: unknown) => err);
    assert.ok(failed instanceof ListBoundError && failed.bound === 'bytes', `a byte bound error, got ${String(failed)}`);
    // The bound counts the first page and the unpaginated list together: the read stopped within a chunk of it.
    assert.ok(listing.report!.bytes <= bound, `read ${listing.report!.bytes} bytes of the ~6 MB list`);
  });
});
