/**
 * What agents read of a tool, made small and plain (issue 28): the full tool list is sent into a
 * model's context on every session, so it must stay under `TOOLS_LIST_MAX_BYTES` with every
 * provider configured. Meaning is kept: a union of constants becomes the `enum` it is, a subschema
 * repeated within one tool is written once under `$defs` and referenced, output schemas keep their
 * shape but not their prose (the answer's field names speak for themselves), and no text names
 * sections of the service's specification, which agents cannot read.
 */

/** The most a full `tools/list` answer may weigh, in bytes of JSON (checked by a test). */
export const TOOLS_LIST_MAX_BYTES = 80 * 1024;

type Json = unknown;
type Obj = Record<string, Json>;

import { withoutRedundancy } from './schema-redundancy.js';

const isObj = (v: Json): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** Text without references to specification sections ("(spec §2.5)", "per spec §4.10;", "from the spec §4.1 list"). */
export function withoutSpecRefs(text: string): string {
  return text
    .replace(/\s*\((?:see |as in )?(?:the )?spec §[\d.–-]+(?: list)?\)/g, '')
    .replace(/,?\s*(?:a \w+ )?(?:per|from|in|see) (?:the )?spec §[\d.–-]+(?: list)?/g, '')
    .replace(/\s*spec §[\d.–-]+;?/g, '')
    .replace(/\(\s*[;,]\s*/g, '(')
    .replace(/\s*[;,]\s*\)/g, ')')
    .replace(/\s*\(\s*\)/g, '')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** A union whose members are all constants of one type is that type's `enum`. */
function enumOf(s: Obj): Obj {
  const alt = s.anyOf;
  if (!Array.isArray(alt) || alt.length === 0) return s;
  const consts = alt.every((o) => isObj(o) && 'const' in o && Object.keys(o).every((k) => k === 'const' || k === 'type'));
  if (!consts) return s;
  const types = new Set(alt.map((o) => (o as Obj).type ?? typeof (o as Obj).const));
  if (types.size !== 1) return s;
  const { anyOf: _dropped, ...rest } = s;
  return { ...rest, type: [...types][0], enum: alt.map((o) => (o as Obj).const) };
}

/**
 * One pass over a schema: enums, spec references, for inputs the limits the executor enforces
 * anyway, and for outputs prose and closed-object flags dropped.
 */
function tidy(v: Json, output: boolean, depth = 0): Json {
  if (depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => tidy(x, output, depth + 1));
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    // An answer's field names speak for themselves; which of them are always present is not worth
    // the context (the answer itself shows it).
    if (output && (k === 'description' || k === 'additionalProperties' || k === 'examples' || k === 'title' || k === 'required')) continue;
    if (k === 'format' && output) continue;
    // Limits the executor enforces with a clear 400 anyway (closed objects, string lengths and
    // patterns, list sizes) cost an agent's context on every session and rarely guide what it sends.
    if (!output && ((k === 'additionalProperties' && x === false) || k === 'minLength' || k === 'maxLength' || k === 'pattern' || k === 'minItems' || k === 'maxItems')) continue;
    // A constant (a union member's discriminator) says all there is; its variant carries the prose.
    if (k === 'description' && 'const' in v) continue;
    if (k === 'description' && typeof x === 'string') out[k] = withoutSpecRefs(x);
    // `properties` maps names to schemas: its keys are field names, not keywords.
    else if (k === 'properties' && isObj(x)) out[k] = Object.fromEntries(Object.entries(x).map(([n, s]) => [n, tidy(s, output, depth + 1)]));
    else out[k] = tidy(x, output, depth + 1);
  }
  return enumOf(out);
}

/** Subschemas at least this long (JSON characters) are worth sharing when they repeat. */
const SHARE_MIN = 40;

/**
 * Writes each object subschema that occurs more than once in `schema` once, under `$defs`, and
 * refers to it by `$ref` (JSON Schema 2020-12, which MCP tool schemas use).
 */
function shareRepeats(schema: Obj): Obj {
  const counts = new Map<string, number>();
  const visit = (v: Json, top: boolean) => {
    if (Array.isArray(v)) return v.forEach((x) => visit(x, false));
    if (!isObj(v)) return;
    if (!top) {
      const text = JSON.stringify(v);
      if (text.length >= SHARE_MIN) counts.set(text, (counts.get(text) ?? 0) + 1);
    }
    for (const [k, x] of Object.entries(v)) {
      if (k === 'properties' && isObj(x)) Object.values(x).forEach((s) => visit(s, false));
      else visit(x, false);
    }
  };
  visit(schema, true);
  const shared = new Map<string, string>();
  for (const [text, n] of counts) if (n > 1) shared.set(text, `s${shared.size}`);
  if (shared.size === 0) return schema;
  const defs: Obj = {};
  const replace = (v: Json, top: boolean): Json => {
    if (Array.isArray(v)) return v.map((x) => replace(x, false));
    if (!isObj(v)) return v;
    if (!top) {
      const name = shared.get(JSON.stringify(v));
      if (name) {
        if (!(name in defs)) defs[name] = null;
        const inner = rebuild(v);
        defs[name] = inner;
        return { $ref: `#/$defs/${name}` };
      }
    }
    return rebuild(v);
  };
  const rebuild = (v: Obj): Obj => {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = k === 'properties' && isObj(x) ? Object.fromEntries(Object.entries(x).map(([n, s]) => [n, replace(s, false)])) : replace(x, false);
    }
    return out;
  };
  const out = replace(schema, true) as Obj;
  return { ...out, $defs: defs };
}

/** How many levels of an output's fields are described (deeper values are only typed). */
const OUTPUT_LEVELS = 0;

/**
 * An output schema cut to `levels` levels of fields: below that a value keeps its `type` only
 * (any value of that type is accepted, so a valid answer always conforms).
 */
function shapeOnly(v: Json, levels: number): Json {
  if (!isObj(v)) return v;
  if (levels < 0) return typeof v.type === 'string' ? { type: v.type } : {};
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'properties' && isObj(x)) out[k] = Object.fromEntries(Object.entries(x).map(([n, s]) => [n, shapeOnly(s, levels - 1)]));
    else if (k === 'items') out[k] = shapeOnly(x, levels);
    else if ((k === 'anyOf' || k === 'oneOf') && Array.isArray(x)) out[k] = x.map((s) => shapeOnly(s, levels));
    else out[k] = x;
  }
  return out;
}

/**
 * A tool's input schema as sent to agents. `requestSource` is left out: the lane sets it (`mcp`)
 * and still honours one an agent sends, but no agent needs it described in every tool.
 */
export function compactInputSchema(schema: Obj): Obj {
  return shareRepeats(withoutRedundancy(tidy(withoutRequestSource(schema), false)) as Obj);
}

/** The schema without a top-level `requestSource` field, also in each body variant (`oneOf`/`anyOf`). */
function withoutRequestSource(schema: Obj): Obj {
  const out: Obj = { ...schema };
  if (isObj(out.properties) && 'requestSource' in out.properties) {
    const { requestSource: _dropped, ...rest } = out.properties;
    out.properties = rest;
  }
  for (const k of ['oneOf', 'anyOf'] as const) if (Array.isArray(out[k])) out[k] = (out[k] as Json[]).map((v) => (isObj(v) ? withoutRequestSource(v) : v));
  return out;
}

/** A tool's output schema as sent to agents: its shape (types, required fields, enums) two levels deep, no prose. */
export function compactOutputSchema(schema: Obj): Obj {
  return shareRepeats(shapeOnly(tidy(schema, true), OUTPUT_LEVELS) as Obj);
}
