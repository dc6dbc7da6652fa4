/**
 * What a tool's input schema says twice, said once (issue 27's tools/list headroom). Every byte of
 * `tools/list` is paid in each agent's context, so the MCP lane drops what the same schema already
 * states elsewhere, never what it states only once:
 * - a body variant (`oneOf`/`anyOf` member) repeating its parent object: the same `type`, fields
 *   the parent already requires, a field whose schema is the parent's own (the parent applies to
 *   every body anyway);
 * - TypeBox's spelling of a map, `patternProperties: { "^(.*)$": S }`, which is
 *   `additionalProperties: S`; `additionalProperties: true` and `properties: {}`, which are what a
 *   schema without them means;
 * - `minimum`/`maximum`/`default` whose values the field's description already gives in words
 *   ("Images to generate, 1–4.", "(default 80)"); the executor checks the limits either way and
 *   answers a clear 400;
 * - `uniqueItems`, a limit like the list sizes the compact schema already leaves to the executor.
 */
type Json = unknown;
type Obj = Record<string, Json>;

const isObj = (v: Json): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** TypeBox writes `Record(String, S)` as this one pattern: any key. */
const ANY_KEY = '^(.*)$';

/** Whether `text` gives the range min..max ("1–4", "0-5000", "1 (strictest) to 5"). */
function statesRange(text: string, min: Json, max: Json): boolean {
  if (typeof min !== 'number' || typeof max !== 'number') return false;
  return new RegExp(`(?<![\\d.])${escaped(String(min))}(?:\\s*\\([^)]*\\))?\\s*(?:[-–]|to)\\s*${escaped(String(max))}(?![\\d.])`).test(text);
}

/** Whether `text` gives the default ("default 80", "Default: en"). */
function statesDefault(text: string, value: Json): boolean {
  if (value === null || typeof value === 'object') return false;
  return new RegExp(`\\bdefault:?\\s+['"\`]?${escaped(String(value))}(?![\\w.])`, 'i').test(text);
}

/** A body variant without what its parent object already says. */
function variantWithoutParent(variant: Json, parent: Obj): Json {
  if (!isObj(variant)) return variant;
  const out: Obj = { ...variant };
  if (out.type !== undefined && same(out.type, parent.type)) delete out.type;
  if (Array.isArray(out.required) && Array.isArray(parent.required)) {
    const own = out.required.filter((r) => !(parent.required as Json[]).includes(r));
    if (own.length) out.required = own;
    else delete out.required;
  }
  if (isObj(out.properties) && isObj(parent.properties)) {
    const parentProps = parent.properties;
    out.properties = Object.fromEntries(Object.entries(out.properties).filter(([name, s]) => !(name in parentProps && same(s, parentProps[name]))));
  }
  return out;
}

/** One pass over an input schema (before repeated parts are shared: sharing depends on the result). */
export function withoutRedundancy(v: Json, depth = 0): Json {
  if (depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => withoutRedundancy(x, depth + 1));
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'properties' && isObj(x)) out[k] = Object.fromEntries(Object.entries(x).map(([n, s]) => [n, withoutRedundancy(s, depth + 1)]));
    else out[k] = withoutRedundancy(x, depth + 1);
  }
  if (isObj(out.patternProperties)) {
    const keys = Object.keys(out.patternProperties);
    if (keys.length === 1 && keys[0] === ANY_KEY && out.additionalProperties === undefined) {
      out.additionalProperties = out.patternProperties[ANY_KEY];
      delete out.patternProperties;
    }
  }
  if (out.additionalProperties === true) delete out.additionalProperties;
  if (isObj(out.properties) && Object.keys(out.properties).length === 0) delete out.properties;
  delete out.uniqueItems;
  const text = typeof out.description === 'string' ? out.description : '';
  if (text && statesRange(text, out.minimum, out.maximum)) {
    delete out.minimum;
    delete out.maximum;
  }
  if (text && 'default' in out && statesDefault(text, out.default)) delete out.default;
  for (const k of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(out[k]) && isObj(out.properties)) out[k] = (out[k] as Json[]).map((m) => variantWithoutParent(m, out));
  }
  return out;
}
