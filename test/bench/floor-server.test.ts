import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createFloorServer, createKoaFloorServer, floorReply } from './floor-server.js';

describe('floor server', () => {
  it('passes every node through in the reply shape of each verb', () => {
    assert.deepEqual(floorReply('/filter', { Pod: {}, Nodes: null, NodeNames: ['a', 'b'] }),
      { Nodes: null, NodeNames: ['a', 'b'], FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: '' });
    const nodes = { metadata: {}, items: [{ metadata: { name: 'a' } }] };
    assert.deepEqual((floorReply('/filter', { Pod: {}, Nodes: nodes, NodeNames: null }) as Record<string, unknown>).Nodes, nodes);
    assert.deepEqual(floorReply('/prioritize', { Pod: {}, Nodes: nodes, NodeNames: null }), [{ Host: 'a', Score: 0 }]);
    const victims = { a: { Pods: [{ UID: 'u' }], NumPDBViolations: 0 } };
    assert.deepEqual(floorReply('/preempt', { Pod: {}, NodeNameToVictims: null, NodeNameToMetaVictims: victims }),
      { NodeNameToMetaVictims: victims });
    assert.equal(floorReply('/bind', {}), undefined);
  });

  for (const [name, create] of [['plain node:http', createFloorServer], ['bare Koa', createKoaFloorServer]] as const) {
    it(`answers over HTTP on loopback, 400 on invalid JSON (${name})`, async () => {
      const server = create();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const ok = await fetch(`${base}/prioritize`, { method: 'POST', body: '{"Pod":{},"Nodes":null,"NodeNames":["x"]}' });
        assert.equal(ok.status, 200);
        assert.deepEqual(await ok.json(), [{ Host: 'x', Score: 0 }]);
        const bad = await fetch(`${base}/filter`, { method: 'POST', body: '{' });
        assert.equal(bad.status, 400);
        await bad.arrayBuffer();
        assert.equal((await fetch(`${base}/readyz`)).status, 200);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  }
});
