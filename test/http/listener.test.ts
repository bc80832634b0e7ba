import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { post, startTestServer } from './support.js';

/** A filter body with `count` candidate names: ~36 bytes a name, as kube-scheduler sends them. */
function filterBody(count: number): string {
  const names = Array.from({ length: count }, (_, i) => `gke-pool-${i % 7}-6d293694-n${String(i).padStart(5, '0')}`);
  return JSON.stringify({ Pod: { metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [] } }, Nodes: null, NodeNames: names });
}

describe('extender listener', () => {
  it('reads a body of up to 64 KiB that came with its headers without pausing the connection (Node.js 20 paused it over 16 KiB)', async () => {
    const t = await startTestServer();
    const pauses: string[] = [];
    t.running.server.on('connection', (socket: Socket) => socket.on('pause', () => pauses.push('pause')));
    try {
      const body = filterBody(1500);
      assert.ok(body.length > 40_000 && body.length < 64 * 1024, `body of ${body.length} bytes`);
      for (let i = 0; i < 3; i++) {
        const reply = await post(t.running.port, '/filter', body);
        assert.equal(reply.status, 200, reply.text);
      }
      assert.deepEqual(pauses, []);
    } finally {
      await t.running.close();
    }
  });
});
