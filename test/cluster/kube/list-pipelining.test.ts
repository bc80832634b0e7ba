/**
 * A paginated list asks for page n+1 as soon as page n's head (ListMeta, written before the items) has arrived, not
 * after page n was read and parsed (cluster/kube/list-head.ts). Driven against a hand-written list server that holds
 * the rest of page 1 back until page 2 has been asked for: a reflector that waited for the whole page would never
 * finish. Also: the head's token read from the first bytes, the fallback when the head cannot tell, and a page that
 * fails after its successor was asked for.
 */
import assert from 'node:assert/strict';
import { continueTokenOfListHead } from '../../../src/cluster/kube/list-head.js';
import { eventually } from '../../support/eventually.js';
import { head, holdWatch, podJson, Started } from './list-server.js';

describe('paginated list: the next page is asked for once the head of the current one arrived', () => {
  const started = new Started();
  afterEach(() => started.stopAll());

  it('page 2 is requested while page 1 is still arriving; objects keep the pages\' order', async () => {
    let askedForPage2: () => void = () => {};
    const page2Asked = new Promise<void>((resolve) => { askedForPage2 = resolve; });
    const url = await started.server((request, response, u) => {
      if (u.searchParams.get('watch')) return holdWatch(response);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      const token = u.searchParams.get('continue');
      if (token === null) {
        response.write(head('page-2'));
        // The rest of page 1 only once page 2 has been asked for: a client waiting for the whole page never gets it.
        const timer = setTimeout(() => response.destroy(), 3000);
        void page2Asked.then(() => {
          clearTimeout(timer);
          response.end(`${podJson('a')},${podJson('b')}]}`);
        });
      } else {
        assert.equal(token, 'page-2');
        askedForPage2();
        response.end(`${head(undefined)}${podJson('c')}]}`);
      }
    });
    assert.deepEqual(await started.listed(url, 'the list to complete', 2500), ['a', 'b', 'c']);
  });

  it('a head that cannot tell (items before metadata) is read whole first, and the list still completes', async () => {
    const continues: Array<string | null> = [];
    const url = await started.server((request, response, u) => {
      if (u.searchParams.get('watch')) return holdWatch(response);
      const token = u.searchParams.get('continue');
      continues.push(token);
      const last = token === 'p3';
      const items = token === null ? ['a', 'b'] : token === 'p2' ? ['c', 'd'] : ['e'];
      const metadata = last ? { resourceVersion: '10' } : { resourceVersion: '10', continue: token === null ? 'p2' : 'p3' };
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(`{"kind":"PodList","apiVersion":"v1","items":[${items.map(podJson).join(',')}],"metadata":${JSON.stringify(metadata)}}`);
    });
    assert.deepEqual(await started.listed(url, 'the list to complete', 2500), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(continues, [null, 'p2', 'p3'], 'each page asked for once, in order');
  });

  it('a page that breaks after its successor was asked for: the successor is abandoned and the list starts over', async () => {
    let firstAttempt = true;
    const continuesSeen: Array<string | null> = [];
    let page2Aborted = false;
    const url = await started.server((request, response, u) => {
      if (u.searchParams.get('watch')) return holdWatch(response);
      const token = u.searchParams.get('continue');
      continuesSeen.push(token);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      if (token === null) {
        response.write(head('page-2'));
        if (firstAttempt) {
          firstAttempt = false;
          // Broken mid-body once page 2 is on its way.
          setTimeout(() => response.destroy(), 100);
          return;
        }
        response.end(`${podJson('a')},${podJson('b')}]}`);
        return;
      }
      if (continuesSeen.filter((t) => t === 'page-2').length === 1) {
        // The first page-2 request is never answered: only abandoning it lets it go.
        request.on('close', () => { page2Aborted = true; });
        response.write(head(undefined));
        return;
      }
      response.end(`${head(undefined)}${podJson('c')}]}`);
    });
    assert.deepEqual(await started.listed(url, 'the list to complete on its second attempt', 4000), ['a', 'b', 'c']);
    await eventually(() => page2Aborted, 'the abandoned page-2 request to be closed by the client', 2000);
    assert.deepEqual(continuesSeen, [null, 'page-2', null, 'page-2']);
  });
});

describe('continueTokenOfListHead', () => {
  it('reads the token once the head holds the whole ListMeta', () => {
    const text = `${head('abc=')}{"metadata":{"name":"x"`;
    assert.equal(continueTokenOfListHead(text), 'abc=');
    assert.equal(continueTokenOfListHead(head(undefined)), '', 'a last page says so');
    assert.equal(continueTokenOfListHead('{"kind":"PodList","apiVersion":"v1",\n "metadata" : {"continue":"t"} ,\n"items":['), 't');
  });

  it('cannot tell from a partial head, items before metadata, or a malformed head', () => {
    assert.equal(continueTokenOfListHead('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVer'), undefined);
    assert.equal(continueTokenOfListHead('{"kind":"PodList","items":[]}'), undefined);
    assert.equal(continueTokenOfListHead('{"kind":"PodList","apiVersion":"v1","items":[],"metadata":{"continue":"t"}}'), undefined);
    assert.equal(continueTokenOfListHead('{"metadata":{"continue":7},"items":['), undefined, 'a token that is not a string');
    assert.equal(continueTokenOfListHead('{"metadata":[],"items":['), undefined);
    assert.equal(continueTokenOfListHead('{"metadata":{"continue":"t"}"items":['), undefined, 'no comma before items');
  });

  it('"items": inside a string of the head is escaped, so it is never taken for the key', () => {
    const text = '{"kind":"PodList","apiVersion":"v1","metadata":{"selfLink":"x\\"items\\":y","continue":"t"},"items":[';
    assert.equal(continueTokenOfListHead(text), 't');
  });
});
