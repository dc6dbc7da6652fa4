/**
 * Values the scaffold writes into a new provider's fake and test (issue 29): the smallest value a
 * capability's schema accepts (required fields only), and an input the capability takes as a
 * whole (its own example when it has one, else one built from its schema that passes its checks).
 * Every value is checked against the schema it was built for, so a generated fake answers what
 * the capability's output check accepts.
 */
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { CapabilityDef } from '../core/sdk.js';

/** Strings tried, in order, against a string schema's length and pattern. */
const STRING_CANDIDATES = [
  'sample',
  'https://example.com/sample',
  'en',
  'us',
  'a',
  'sample-1',
  '00:00:01',
  '2024-01-01',
  '2024-01-01T00:00:00Z',
  'image/png',
  'UC0123456789abcdefghijkl',
  '@sample',
  'c2FtcGxl',
  '1',
];

type Schema = TSchema & Record<string, any>;

/** Candidates first for a field whose name says what it holds. */
const BY_NAME: [RegExp, string[]][] = [
  [/url|link|href|file|video|audio|image/i, ['https://example.com/sample', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ']],
  [/^end/i, ['00:00:02']],
  [/timestamp|time/i, ['00:00:01']],
  [/prompt|question|query|text/i, ['What is on the page?']],
];

function sampleString(s: Schema, name: string, variant: number): string {
  const hinted = BY_NAME.filter(([re]) => re.test(name)).flatMap(([, c]) => c);
  // A later variant tries the next hinted candidate first (a video URL where any URL failed).
  if (hinted.length > 1) hinted.unshift(...hinted.splice(variant % hinted.length, 1));
  const found = [...hinted, ...STRING_CANDIDATES].find((c) => Value.Check(s, c));
  if (found !== undefined) return found;
  // A length rule alone: repeat one letter as often as needed.
  const long = 'a'.repeat(Math.max(1, s.minLength ?? 1));
  if (Value.Check(s, long)) return long;
  throw new Error(`no sample string for ${JSON.stringify(s)}; write one by hand`);
}

function sampleNumber(s: Schema, integer: boolean): number {
  const low = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : 0.5) : undefined);
  const n = low ?? (s.maximum !== undefined && s.maximum < 1 ? s.maximum : 1);
  return integer ? Math.ceil(n) : n;
}

/** The smallest value `schema` accepts: required properties only, empty arrays where allowed. */
export function sampleOf(schema: TSchema, name = '', variant = 0): unknown {
  const s = schema as Schema;
  const value = sampleLoose(s, name, variant);
  if (!Value.Check(s, value)) throw new Error(`the sample ${JSON.stringify(value)} does not fit ${JSON.stringify(s)}`);
  return value;
}

function sampleLoose(s: Schema, name: string, variant: number): unknown {
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const branches: Schema[] = s.anyOf ?? s.oneOf;
    // A nullable field answers null (the least a provider must send); otherwise the first branch that works.
    const nullable = branches.find((b) => b.type === 'null');
    if (nullable) return null;
    for (const b of branches) {
      try {
        return sampleOf(b, name, variant);
      } catch {
        // try the next branch
      }
    }
    throw new Error(`no branch of ${JSON.stringify(s)} has a sample`);
  }
  switch (s.type) {
    case 'string':
      return sampleString(s, name, variant);
    case 'integer':
      return sampleNumber(s, true);
    case 'number':
      return sampleNumber(s, false);
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sampleOf(s.items, name, variant));
    case 'object':
      return Object.fromEntries(((s.required ?? []) as string[]).map((k) => [k, sampleOf(s.properties[k], k, variant)]));
    default:
      // Unknown / Any: a free-form value.
      return {};
  }
}

/** The required top-level fields of an object schema (none for another kind of schema). */
export function requiredFields(schema: TSchema | undefined): string[] {
  const s = schema as Schema | undefined;
  return s?.type === 'object' ? [...((s.required ?? []) as string[])] : [];
}

/** The optional top-level fields of an object schema, with their descriptions. */
export function optionalFields(schema: TSchema | undefined): { name: string; description: string }[] {
  const s = schema as Schema | undefined;
  if (s?.type !== 'object') return [];
  const required = new Set(requiredFields(s));
  return Object.entries(s.properties as Record<string, Schema>)
    .filter(([k]) => !required.has(k))
    .map(([name, p]) => ({ name, description: String(p.description ?? '') }));
}

const accepts = (cap: CapabilityDef<any, any>, input: unknown) => Value.Check(cap.input, input) && !cap.validate?.(input as never);

/**
 * An input the capability accepts: its first example, else its required fields' samples, else
 * those plus one optional field (a capability that asks for "this or that" refuses neither alone).
 */
export function capabilityInput(cap: CapabilityDef<any, any>): Record<string, unknown> {
  const example = cap.examples?.[0]?.input as Record<string, unknown> | undefined;
  if (example && accepts(cap, example)) return example;
  const s = cap.input as Schema;
  for (const variant of [0, 1]) {
    const base = sampleOf(cap.input, '', variant) as Record<string, unknown>;
    if (accepts(cap, base)) return base;
    for (const { name } of optionalFields(s)) {
      let extra: unknown;
      try {
        extra = sampleOf(s.properties[name], name, variant);
      } catch {
        continue;
      }
      const input = { ...base, [name]: extra };
      if (accepts(cap, input)) return input;
    }
  }
  throw new Error(`could not build an input capability '${cap.id}' accepts; give its catalogue entry an example`);
}
