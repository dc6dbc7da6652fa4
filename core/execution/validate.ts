/** Input validation with the spec's messages (spec §7.1 400 texts). */
import type { TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { InputError } from '../errors.js';

/**
 * Checks `input` against a compiled schema. When the first error is on a top-level field that has
 * a spec message (e.g. `'url' parameter is required and must be a non-empty string.`), that text
 * is used; otherwise the message names the field and what was expected.
 */
export function validateInput(check: TypeCheck<TSchema>, input: unknown, messages?: Record<string, string>): void {
  if (check.Check(input)) return;
  const errors = [...check.Errors(input)];
  if (messages) {
    for (const e of errors) {
      const field = e.path.split('/')[1];
      if (field && messages[field]) throw new InputError(messages[field]!);
    }
  }
  const first = errors[0];
  if (!first) throw new InputError('Invalid input.');
  if (first.path === '') throw new InputError(`Invalid input: ${first.message.toLowerCase()}.`);
  const field = first.path.slice(1).replace(/\//g, '.');
  throw new InputError(`Invalid input: '${field}' ${first.message.toLowerCase()}.`, { details: { field } });
}
