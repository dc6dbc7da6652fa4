/**
 * A TypeBox (JSON Schema) object as a compact markdown table — one row per field, nested fields as
 * dotted paths (`scrapeOptions.format`, `results[].title`) — for the generated capability reference.
 * A reader who has not opened `core/` sees each field's type, whether it is required, its default
 * and its description, without reading raw JSON Schema.
 */

type Schema = Record<string, any>;

/** One row of a field table. */
export interface FieldRow {
  field: string;
  type: string;
  required: boolean;
  default?: string;
  description: string;
}

/** Nested objects below this depth are summarised by their own row, not walked. */
const MAX_DEPTH = 4;

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

function literal(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}

/** The range a numeric, string or array schema allows, as a short suffix (`1–100`). */
function bounds(s: Schema): string {
  const [lo, hi, unit] =
    s.type === 'string' ? [s.minLength, s.maxLength, ' chars'] : s.type === 'array' ? [s.minItems, s.maxItems, ' items'] : [s.minimum ?? s.exclusiveMinimum, s.maximum ?? s.exclusiveMaximum, ''];
  if (lo === undefined && hi === undefined) return '';
  if (lo === 1 && hi === undefined && unit) return ' (non-empty)';
  if (lo !== undefined && hi !== undefined) return ` (${lo}–${hi}${unit})`;
  return lo !== undefined ? ` (≥ ${lo}${unit})` : ` (≤ ${hi}${unit})`;
}

/** A schema's type in words: `string`, `integer (1–100)`, `"a" \| "b"`, `array of string`, `map of number`. */
export function typeText(s: Schema | undefined): string {
  if (!s || typeof s !== 'object') return 'any';
  if (s.const !== undefined) return literal(s.const);
  if (Array.isArray(s.enum)) return s.enum.map(literal).join(' | ');
  const members = (s.anyOf ?? (s.type === undefined ? s.oneOf : undefined)) as Schema[] | undefined;
  if (members) {
    // A union of object shapes (page actions) reads as its count; each shape's fields follow.
    const objects = members.filter((m) => m.type === 'object' && m.properties);
    if (objects.length > 1) return `one of ${objects.length} objects`;
    return [...new Set(members.map(typeText))].join(' | ');
  }
  switch (s.type) {
    case 'array':
      return `array of ${typeText(s.items)}${bounds(s)}`;
    case 'object': {
      const values = Object.values((s.patternProperties ?? {}) as Record<string, Schema>);
      if (values.length && !s.properties) return `map of ${typeText(values[0])}`;
      if (!s.properties || Object.keys(s.properties).length === 0) return 'object (free-form)';
      return 'object';
    }
    case 'string':
      return `string${s.format ? ` (${s.format})` : ''}${bounds(s)}`;
    case 'integer':
    case 'number':
      return `${s.type}${bounds(s)}`;
    case undefined:
      return 'any';
    default:
      return Array.isArray(s.type) ? s.type.join(' | ') : String(s.type);
  }
}

/** The object schemas whose fields a field of schema `s` carries (itself, array items, union members). */
function nestedObjects(s: Schema): { suffix: string; schema: Schema }[] {
  if (s.type === 'object' && s.properties && Object.keys(s.properties).length) return [{ suffix: '', schema: s }];
  if (s.type === 'array' && s.items) return nestedObjects(s.items).map((n) => ({ ...n, suffix: `[]${n.suffix}` }));
  const members = (s.anyOf ?? []) as Schema[];
  return members.flatMap(nestedObjects);
}

/** Every field of an object schema, depth first, nested ones under their parent. */
export function fieldRows(schema: Schema): FieldRow[] {
  const rows: FieldRow[] = [];
  const walk = (s: Schema, prefix: string, depth: number, ancestors: Set<Schema>) => {
    const required = new Set<string>(s.required ?? []);
    for (const [name, child] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      const field = `${prefix}${name}`;
      rows.push({
        field,
        type: typeText(child),
        required: required.has(name),
        default: child.default === undefined ? undefined : literal(child.default),
        description: child.description ?? '',
      });
      if (depth + 1 >= MAX_DEPTH) continue;
      for (const nested of nestedObjects(child)) {
        if (ancestors.has(nested.schema)) continue;
        walk(nested.schema, `${field}${nested.suffix}.`, depth + 1, new Set([...ancestors, nested.schema]));
      }
    }
  };
  walk(schema, '', 0, new Set([schema]));
  return rows;
}

/** The markdown table of `rows` (Field, Type, Required, Description). */
export function fieldTable(rows: FieldRow[]): string {
  const lines = rows.map((r) => {
    const required = r.required ? 'yes' : r.default !== undefined ? `no (default ${r.default})` : 'no';
    return `| \`${r.field}\` | ${cell(r.type)} | ${cell(required)} | ${cell(r.description)} |`;
  });
  return ['| Field | Type | Required | Description |', '|---|---|---|---|', ...lines].join('\n');
}
