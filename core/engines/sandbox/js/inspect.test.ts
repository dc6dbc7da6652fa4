/**
 * `console.log` inside the isolate prints values the way Node does (issue 6): each expression of
 * a corpus is logged in the sandbox and compared with Node's own `util.format` of the same value.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { format } from 'node:util';
import { JsSandboxEngine } from './engine.js';
import { loadSandboxSettings } from '../settings.js';

const CORPUS = [
  '[1, 2, 3, 4, 5, 6, 7]',
  'Array.from({ length: 30 }, (_, i) => i)',
  'Array.from({ length: 120 }, (_, i) => i * 3)',
  'Array.from({ length: 101 }, () => 1)',
  '["apple", "banana", "cherry", "date", "elderberry", "fig", "grape", "honeydew"]',
  '[1.5, 22.25, 333, 4, 55555, 6, 7, 8]',
  '["a", 1, "b", 2, "c", 3, "d"]',
  '[true, false, true, false, true, false, true]',
  'Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i).repeat((i % 5) + 1))',
  'Array.from({ length: 10 }, (_, i) => ({ id: i }))',
  '{ a: { b: "x".repeat(80) } }',
  '{ a: 1, b: "two", c: [1, 2, 3], d: { e: null, f: undefined } }',
  '{ a: { b: { c: { d: 1 } } } }',
  '[[1, [2, [3, [4]]]]]',
  '{ nested: { list: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] } }',
  '{ users: [{ name: "Ada", roles: ["admin", "dev"] }, { name: "Linus", roles: ["dev"] }] }',
  '{ longPropertyNameNumberOne: 1, longPropertyNameNumberTwo: 2, longPropertyNameNumberThree: 3 }',
  '{ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8 }',
  '{ "": 1, "a-b": 2, $x: 3, _y: 4, 3: "num" }',
  'new Map([["a", { x: 1 }], ["b", [1, 2]]])',
  'new Map(Array.from({ length: 8 }, (_, i) => ["k" + i, i]))',
  'new Set(["a", "b"])',
  '[undefined, null, NaN, -0, 0, 1n, Symbol("q")]',
  '[ , 1, , 2]',
  '["it\'s", \'say "hi"\', "line1\\nline2"]',
  'Object.create(null)',
  'new (class Foo { constructor() { this.x = 1 } })()',
  '[function f() {}, () => {}, class A {}, async function g() {}]',
  '{ f() {}, h: () => 1 }',
  '[new Date(0), /a+/gi, new Uint8Array([1, 2, 3])]',
  '{ big: 12345678901234567890n, neg: -1.5e-7, inf: -Infinity }',
];

let engine: JsSandboxEngine;
before(() => {
  engine = new JsSandboxEngine(loadSandboxSettings({ SANDBOX_JS_WORKERS: '1' }), { debug() {}, info() {}, warn() {}, error() {} });
  engine.start();
});
after(() => engine.close());

test('console.log output matches Node for a corpus of values', async () => {
  for (const expr of CORPUS) {
    // The corpus is this file's own constant text, evaluated on the host only to get Node's answer.
    const expected = format((0, eval)(`(${expr})`)).split('\n');
    const r = await engine.run({ code: `console.log(${expr})` });
    assert.equal(r.error, undefined, expr);
    assert.deepEqual(r.stdout, expected, expr);
  }
});

test('format specifiers follow util.format', async () => {
  const args = '"%s is %d years and %i days, %f%% sure: %j %O", "Ada", 36.5, 2.9, "0.5", { a: [1] }, [1]';
  const r = await engine.run({ code: `console.log(${args})` });
  assert.deepEqual(r.stdout, [(0, eval)(`(f) => f(${args})`)(format)]);
});
