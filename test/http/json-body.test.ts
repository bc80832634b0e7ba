/**
 * The body reader's media-type check: a scheduler sends one Content-Type on every call, so the last accepted one is
 * remembered; that must never let another type through.
 */
import assert from 'node:assert/strict';
import { checkJsonContentType } from '../../src/http/json-body.js';
import { HttpProblem } from '../../src/http/http-problem.js';

const refused = (header: string) => assert.throws(() => checkJsonContentType(header), (err: unknown) => err instanceof HttpProblem && err.status === 415);

describe('checkJsonContentType', () => {
  it('accepts JSON types and refuses others, whatever was accepted before', () => {
    for (let round = 0; round < 2; round++) {
      checkJsonContentType('application/json');
      refused('text/plain');
      checkJsonContentType('application/json; charset=utf-8');
      refused('application/json; charset=latin1');
      checkJsonContentType('application/merge-patch+json');
      refused('application/jsonx');
      checkJsonContentType(undefined);
      checkJsonContentType('  ');
    }
  });
});
