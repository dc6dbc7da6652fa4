/** The compact tool schemas keep their meaning: enums, shared parts, typed outputs, no spec references. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { compactInputSchema, compactOutputSchema, withoutSpecRefs } from './compact-schema.js';

const plain = (s: unknown) => JSON.parse(JSON.stringify(s)) as Record<string, unknown>;

describe('compact schemas', () => {
  it('drops references to specification sections from text', () => {
    assert.equal(withoutSpecRefs('Video summary (spec §2.5).'), 'Video summary.');
    assert.equal(withoutSpecRefs('Extra wait, in ms (0-5000, a number per spec §4.10; rounded).'), 'Extra wait, in ms (0-5000; rounded).');
    assert.equal(withoutSpecRefs('Language code from the spec §4.1 list (e.g. en).'), 'Language code (e.g. en).');
    assert.equal(withoutSpecRefs('Model (spec §4.7); the original name.'), 'Model; the original name.');
    assert.equal(withoutSpecRefs('Source to run (10-second limit, spec §8.2).'), 'Source to run (10-second limit).');
  });

  it('accepts and refuses what the original schema does', () => {
    const Size = Type.Union([Type.Literal('s'), Type.Literal('m'), Type.Literal('l')], { description: 'Size (spec §3).' });
    const Item = Type.Object({ name: Type.String({ description: 'A name long enough to be worth sharing between the variants.' }), size: Size });
    const input = plain(Type.Object({ a: Item, b: Item, requestSource: Type.Optional(Type.String()) }));
    const compact = compactInputSchema(input);
    assert.ok(compact.$defs, 'repeated parts shared');
    assert.doesNotMatch(JSON.stringify(compact), /§|requestSource/);
    const check = new AjvJsonSchemaValidator().getValidator(compact);
    assert.equal(check({ a: { name: 'x', size: 'm' }, b: { name: 'y', size: 'l' } }).valid, true);
    assert.equal(check({ a: { name: 'x', size: 'xl' }, b: { name: 'y', size: 'l' } }).valid, false);
  });

  it('keeps an output schema true to every valid answer', () => {
    const output = Type.Object({ id: Type.String({ description: 'Id.' }), items: Type.Array(Type.Object({ n: Type.Integer() })), extra: Type.Optional(Type.Union([Type.String(), Type.Null()])) });
    const compact = compactOutputSchema(plain(output));
    assert.doesNotMatch(JSON.stringify(compact), /description/);
    const check = new AjvJsonSchemaValidator().getValidator(compact);
    const answer = { id: 'a', items: [{ n: 1 }], extra: null };
    assert.ok(Value.Check(output, answer));
    assert.equal(check(answer).valid, true);
    assert.equal(check({ id: 1 }).valid, false, 'field types still checked');
  });
});
