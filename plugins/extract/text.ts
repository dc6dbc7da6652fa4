/**
 * extract_text (issue 27): the caller's own text — a scraped page's markdown when change tracking
 * compares extracted fields — handed to the text model, which fills `schema` (JSON Schema
 * structured output) or answers `prompt` as a JSON object. No page to fetch, no screenshot.
 */
import type { RunContext, Static } from '../../core/sdk.js';
import { extractSchemaOf, type ExtractTextInput } from '../../core/catalogue.js';
import { answer } from './answer.js';
import { lane, report } from './lane.js';

type Input = Static<typeof ExtractTextInput>;

/** Runs one extract-text call. */
export async function extractTextData(input: Input, ctx: RunContext<any, any>) {
  const l = lane(ctx);
  const prompt = input.prompt ?? 'Extract the data described by the JSON Schema from the text.';
  // A shorthand map (`{"price": "number"}`) becomes its JSON Schema; validation refused any other form.
  const schema = input.schema === undefined ? undefined : extractSchemaOf(input.schema);
  const a = await answer(l.model, { prompt, material: input.text, kind: 'text', json: true, schema }, l.settings);
  const results = a.results && typeof a.results === 'object' && !Array.isArray(a.results) ? (a.results as Record<string, unknown>) : { result: a.results };
  report(l, a);
  return { results };
}
