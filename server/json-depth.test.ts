/** The depth read from a body's bytes agrees with the depth of the value it parses to. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH, nestedDeeperThan, textNestedDeeperThan } from './json-depth.js';

/** A small seeded generator, so a failure names a body that can be built again. */
function random(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

/** Strings that look like JSON syntax: brackets, escaped quotes and backslashes, non-ASCII. */
const TRICKY = ['[', ']]]', '{"a":[', '\\', '\\"[', '"', 'é☕[', '\\\\', '\u0000{'];

/** A random value nested exactly `depth` levels somewhere, with tricky strings around. */
function valueOf(depth: number, next: () => number): unknown {
  if (depth === 0) return TRICKY[Math.floor(next() * TRICKY.length)]!.repeat(1 + Math.floor(next() * 3));
  const inner = valueOf(depth - 1, next);
  const side = () => (next() < 0.5 ? TRICKY[Math.floor(next() * TRICKY.length)] : Math.floor(next() * 100));
  return next() < 0.5 ? [side(), inner, side()] : { [String(side())]: side(), k: inner, '[{': side() };
}

describe('textNestedDeeperThan', () => {
  it('says what the parsed value says, for bodies around the limit whose strings are full of brackets and escapes', () => {
    const next = random(24);
    for (let round = 0; round < 400; round++) {
      const depth = MAX_JSON_DEPTH - 3 + (round % 7);
      const text = JSON.stringify(valueOf(depth, next), null, round % 3 === 0 ? 1 : undefined);
      const bytes = Buffer.from(text);
      assert.equal(textNestedDeeperThan(bytes), nestedDeeperThan(JSON.parse(text)), `depth ${depth}: ${text.slice(0, 200)}`);
      assert.equal(textNestedDeeperThan(bytes), depth > MAX_JSON_DEPTH);
    }
  });

  it('counts empty containers and scalars as the value walk does', () => {
    for (const [text, deep] of [['1', false], ['"[[["', false], ['[]', false], [`${'['.repeat(64)}${']'.repeat(64)}`, false], [`${'['.repeat(65)}${']'.repeat(65)}`, true], [`{"a":${'{"b":'.repeat(64)}1${'}'.repeat(64)}}`, true]] as const) {
      assert.equal(textNestedDeeperThan(Buffer.from(text)), deep, text.slice(0, 40));
      assert.equal(nestedDeeperThan(JSON.parse(text)), deep, text.slice(0, 40));
    }
  });

  it('a string a large body handed over as an object (a decoded file field) is no level, as the string was none', () => {
    class FileField {
      readonly path = '/tmp/x';
    }
    const wrap = (inner: unknown, levels: number) => Array.from({ length: levels }).reduce<unknown>((v) => [v], inner);
    // 64 arrays around a string is allowed; the same with the string standing as a file field must be too.
    assert.equal(nestedDeeperThan(wrap('aGVsbG8=', 64)), false);
    assert.equal(nestedDeeperThan(wrap(new FileField(), 64)), false);
    assert.equal(nestedDeeperThan(wrap({}, 64)), true, 'a plain object is a level');
  });
});
