/**
 * Every relative link of the documentation leads somewhere: the file or directory exists, and an anchor names a
 * heading of the target (or of the same page). Links to other sites are not fetched.
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { anchors, headingSlug, links, markdownFiles, readMarkdown, REPO_ROOT, type MarkdownDocument } from './markdown.js';

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

function brokenLinks(doc: MarkdownDocument, load: (path: string) => MarkdownDocument): string[] {
  const broken: string[] = [];
  for (const link of links(doc)) {
    if (EXTERNAL.test(link.target)) continue;
    const [pathPart = '', anchor] = link.target.split('#', 2);
    const where = `${doc.path}:${link.line} → ${link.target}`;
    if (pathPart === '') {
      if (!anchors(doc).has(anchor ?? '')) broken.push(`${where}: no heading #${anchor ?? ''} on this page`);
      continue;
    }
    const target = normalize(join(dirname(doc.path), decodeURIComponent(pathPart)));
    if (target.startsWith('..')) {
      broken.push(`${where}: leaves the repository`);
      continue;
    }
    if (!existsSync(join(REPO_ROOT, target))) {
      broken.push(`${where}: ${target} does not exist`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!target.endsWith('.md') || statSync(join(REPO_ROOT, target)).isDirectory()) {
      broken.push(`${where}: an anchor into a file that has no headings`);
      continue;
    }
    if (!anchors(load(target)).has(anchor)) broken.push(`${where}: ${target} has no heading #${anchor}`);
  }
  return broken;
}

describe('documentation links', () => {
  const files = markdownFiles();
  const cache = new Map<string, MarkdownDocument>();
  const load = (path: string): MarkdownDocument => {
    let doc = cache.get(path);
    if (doc === undefined) cache.set(path, (doc = readMarkdown(path)));
    return doc;
  };

  it('finds the documentation', () => {
    for (const expected of ['README.md', 'docs/operating.md', 'docs/configuration.md', 'deploy/README.md']) {
      assert.ok(files.includes(expected), expected);
    }
  });

  for (const file of files) {
    it(`${file}: every relative link and anchor resolves`, () => {
      assert.deepEqual(brokenLinks(load(file), load), []);
    });
  }

  describe('the checker', () => {
    it('makes GitHub anchors from headings', () => {
      assert.equal(headingSlug('Quick start: why is my pod pending?'), 'quick-start-why-is-my-pod-pending');
      assert.equal(headingSlug('4. Point kube-scheduler at kube-ledger'), '4-point-kube-scheduler-at-kube-ledger');
      assert.equal(headingSlug('The `kube-ledger` CLI (v1) — usage'), 'the-kube-ledger-cli-v1--usage');
      assert.equal(headingSlug('NUMA zones: who provides, who consumes'), 'numa-zones-who-provides-who-consumes');
    });

    it('reports a missing file, a missing anchor and a link that leaves the repository', () => {
      const doc: MarkdownDocument = {
        path: 'docs/x.md',
        prose: [
          '# Title',
          '[ok](#title) [gone](missing.md) [anchor](../README.md#no-such-heading) [out](../../etc/passwd)',
          '[site](https://example.com/x.md) `[code](not-a-link.md)`',
        ],
        blocks: [],
      };
      const broken = brokenLinks(doc, (path) => (path === 'docs/x.md' ? doc : readMarkdown(path)));
      assert.equal(broken.length, 3, broken.join('\n'));
      assert.match(broken[0]!, /missing\.md does not exist/);
      assert.match(broken[1]!, /README\.md has no heading #no-such-heading/);
      assert.match(broken[2]!, /leaves the repository/);
    });

    it('ignores links inside fenced code', () => {
      const doc = readMarkdown('README.md');
      assert.ok(doc.blocks.some((block) => block.info === 'sh'));
      for (const link of links(doc)) assert.ok(!link.target.includes('localhost'), link.target);
    });
  });
});
