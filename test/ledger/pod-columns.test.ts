/**
 * The pod store's columns (src/ledger/pod-columns.ts): ids are handed out densely, and what was written in a cell
 * reads back after the columns grew, whether they grew all at once (small) or one column at a time (large).
 */
import assert from 'node:assert/strict';
import { PodColumns } from '../../src/ledger/pod-columns.js';

describe('pod columns', () => {
  it('every cell written reads back through growth in steps, past several growths of a large store', () => {
    const columns = new PodColumns();
    const count = 300_000;
    for (let i = 0; i < count; i++) {
      const id = columns.allocate();
      assert.equal(id, i);
      columns.nodeIds[id] = id;
      columns.versions[id] = id * 2;
      columns.uidWords[id * 4 + 3] = id + 1;
      columns.nextInList[id] = -id;
      columns.names.set(id, `pod-${id}`);
    }
    for (let id = 0; id < count; id++) {
      if (columns.nodeIds[id] !== id || columns.versions[id] !== id * 2 || columns.uidWords[id * 4 + 3] !== id + 1
        || columns.nextInList[id] !== -id || columns.names.get(id) !== `pod-${id}`) assert.fail(`id ${id} did not read back`);
    }
    assert.ok(columns.state.length >= count && columns.marks.length >= count && columns.names.offsets.length >= count);
  });

  it('a freed id is handed out again before a new one', () => {
    const columns = new PodColumns();
    const ids = [columns.allocate(), columns.allocate(), columns.allocate()];
    columns.free(ids[1] ?? -1);
    assert.equal(columns.allocate(), ids[1]);
    assert.equal(columns.allocate(), 3);
  });
});
