/** The code plugin's parseJson rule (spec §4.8; README "parseJson"). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shapeLogs } from './logs.js';

test('parseJson off or an empty stream keeps the lines', () => {
  assert.deepEqual(shapeLogs(['{"a":1}'], false), ['{"a":1}']);
  assert.deepEqual(shapeLogs(['{"a":1}'], undefined), ['{"a":1}']);
  assert.deepEqual(shapeLogs([], true), []);
});

test('the whole stream is parsed first, even across lines', () => {
  assert.deepEqual(shapeLogs(['{', '  "a": [1, 2]', '}'], true), { a: [1, 2] });
  assert.equal(shapeLogs(['42'], true), 42);
  assert.equal(shapeLogs(['null'], true), null);
});

test('otherwise the last line that parses wins; no JSON keeps the lines', () => {
  assert.deepEqual(shapeLogs(['loading', '{"step":1}', '{"step":2}', 'done', ''], true), { step: 2 });
  assert.deepEqual(shapeLogs(['plain', 'text'], true), ['plain', 'text']);
  assert.deepEqual(shapeLogs(['not json'], true), ['not json']);
});

test('a truncated stream is never parsed: the lines and the note stay visible', () => {
  const note = '[output truncated: the stream is limited to 3 lines and 1000000 bytes]';
  assert.deepEqual(shapeLogs(['{"n":1}', '{"n":2}', '{"n":3}', note], true), ['{"n":1}', '{"n":2}', '{"n":3}', note]);
  assert.deepEqual(shapeLogs(['[1,', note], true), ['[1,', note]);
  // Without the cut the same lines parse as before.
  assert.deepEqual(shapeLogs(['{"n":1}', '{"n":2}', '{"n":3}'], true), { n: 3 });
});
