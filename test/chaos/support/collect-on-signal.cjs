/**
 * Test-only preload for the extender child process (node --expose-gc --require this file): on SIGUSR2 it runs a
 * full garbage collection and appends the heap and resident set measured right after it, as one JSON line, to the
 * file named by LEDGER_TEST_MEMORY_FILE. Memory-bound tests compare these post-collection figures instead of
 * whatever the collector happened to leave behind at a scrape, which differs from machine to machine.
 */
'use strict';
const { appendFileSync } = require('node:fs');

const file = process.env.LEDGER_TEST_MEMORY_FILE;
if (file && typeof globalThis.gc === 'function') {
  let sequence = 0;
  process.on('SIGUSR2', () => {
    globalThis.gc();
    globalThis.gc();
    const usage = process.memoryUsage();
    sequence += 1;
    appendFileSync(file, `${JSON.stringify({ sequence, heapUsedBytes: usage.heapUsed, rssBytes: usage.rss })}\n`);
  });
}
