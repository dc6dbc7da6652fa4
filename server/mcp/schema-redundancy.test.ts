/** What an input schema says twice is said once, and the schema still accepts and refuses what it did. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { compactInputSchema } from './compact-schema.js';
import { withoutRedundancy } from './schema-redundancy.js';

const plain = (s: unknown) => JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
const validator = (schema: Record<string, unknown>) => new AjvJsonSchemaValidator().getValidator(schema);

describe('input schemas without redundancy', () => {
  // Two bodies chosen by `model`, as the image tool has: each repeats the parent's type, required
  // fields and the shared `keep` flag; the limits of `count` are also in its description.
  const Keep = Type.Boolean({ description: 'Keep the result longer than a day.', default: false });
  const body = (model: string, count: number) =>
    Type.Object({ model: Type.Literal(model), input: Type.Object({ count: Type.Integer({ minimum: 1, maximum: count, default: 1, description: `How many, 1–${count} (default 1).` }) }), keep: Type.Optional(Keep) });
  const Input = Type.Union([body('small', 4), body('large', 2)]);
  const original = plain({ ...Type.Object({ model: Type.Union([Type.Literal('small'), Type.Literal('large')]), input: Type.Object({}, { additionalProperties: true }), keep: Type.Optional(Keep), headers: Type.Optional(Type.Record(Type.String(), Type.String())), tags: Type.Optional(Type.Array(Type.String(), { uniqueItems: true })) }), oneOf: plain(Input).anyOf });

  it('writes each fact once', () => {
    const out = withoutRedundancy(original) as any;
    for (const variant of out.oneOf) {
      assert.equal(variant.type, undefined, 'the parent says object');
      assert.equal(variant.required, undefined, 'the parent requires model and input');
      assert.equal(variant.properties.keep, undefined, 'the parent describes keep');
      const count = variant.properties.input.properties.count;
      assert.deepEqual([count.minimum, count.maximum, count.default], [undefined, undefined, undefined], 'the description gives them');
      assert.match(count.description, /1–\d \(default 1\)/);
    }
    assert.deepEqual(out.properties.headers.additionalProperties, { type: 'string' });
    assert.equal(out.properties.headers.patternProperties, undefined);
    assert.deepEqual(out.properties.input, { type: 'object' });
    assert.equal(out.properties.tags.uniqueItems, undefined);
    assert.equal(out.properties.keep.default, false, 'a default the text does not give stays');
    assert.ok(JSON.stringify(out).length < JSON.stringify(original).length);
  });

  it('accepts and refuses the same bodies as the full schema (limits aside, which the executor checks)', () => {
    const full = validator(original);
    const compact = validator(compactInputSchema(original));
    const bodies = [
      { model: 'small', input: { count: 3 }, keep: true, headers: { a: 'b' } },
      { model: 'large', input: { count: 2 } },
      { model: 'medium', input: { count: 1 } },
      { model: 'small' },
      { model: 'small', input: { count: 1 }, keep: 'yes' },
      { model: 'small', input: { count: 1 }, headers: { a: 1 } },
      { model: 'large', input: { count: 'two' } },
    ];
    for (const b of bodies) assert.equal(compact(b).valid, full(b).valid, JSON.stringify(b));
  });

  it('keeps limits and defaults the description does not give', () => {
    const s = plain(Type.Object({ n: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Results per page.' }), m: Type.Integer({ minimum: 10, maximum: 100, description: 'Between 1 and 100.' }) }));
    const out = withoutRedundancy(s) as any;
    assert.deepEqual([out.properties.n.minimum, out.properties.n.maximum, out.properties.n.default], [1, 100, 10]);
    assert.deepEqual([out.properties.m.minimum, out.properties.m.maximum], [10, 100]);
  });
});
