/** Input validation with the spec's messages (spec §7.1 400 texts). */
import type { TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { InputError, ServiceError } from '../errors.js';
import type { PluginLogger } from '../plugin/types.js';
import { withStrings, withStringsAsync } from '../plugin/predecoded.js';
import { hasDecodedFields, settleDecodedFields, withDecodedFields } from './decoded-fields.js';

/** TypeBox says "Expected string length less or equal to 1000": lower-case its first letter only (patterns keep their case). */
function phrase(message: string): string {
  return message.charAt(0).toLowerCase() + message.slice(1);
}

/** What the field should be, in words: the allowed values of an enum-like union, else TypeBox's text. */
function expectation(e: ValueError): string {
  const options = (e.schema as { anyOf?: { const?: unknown }[] }).anyOf;
  if (e.type === ValueErrorType.Union && options?.length && options.every((o) => o.const !== undefined)) {
    return `must be one of: ${options.map((o) => String(o.const)).join(', ')}`;
  }
  return phrase(e.message);
}

/**
 * Checks `input` against a compiled schema. When the first error is on a top-level field that has
 * a spec message (e.g. `'url' parameter is required and must be a non-empty string.`), that text
 * is used, except for a string that is merely too long (the spec texts say "required", which
 * would mislead); otherwise the message names the field and what was expected.
 */
export function validateInput(check: TypeCheck<TSchema>, input: unknown, messages?: Record<string, string>): void {
  // A decoded file field is checked as the string it stands for (decoded-fields.ts).
  withDecodedFields(check, input, () => checkInput(check, input, messages));
}

function checkInput(check: TypeCheck<TSchema>, input: unknown, messages?: Record<string, string>): void {
  if (check.Check(input)) return;
  const errors = [...check.Errors(input)];
  let first = errors[0];
  if (messages) {
    for (const e of errors) {
      const field = e.path.split('/')[1];
      if (!field || !messages[field]) continue;
      if (e.type === ValueErrorType.StringMaxLength && e.path === `/${field}`) {
        first = e;
        break;
      }
      throw new InputError(messages[field]!);
    }
  }
  if (!first) throw new InputError('Invalid input.');
  if (first.path === '') throw new InputError(`Invalid input: ${phrase(first.message)}.`);
  const field = first.path.slice(1).replace(/\//g, '.');
  throw new InputError(`Invalid input: '${field}' ${expectation(first)}.`, { details: { field } });
}

/**
 * A target's own `validate` hook, run only once the input has passed its schema check (it is typed
 * by that schema). A hook that still throws something other than a catalogue error has met input
 * the schema let through but the hook did not expect (issue 24 finding 8: a field the schema does
 * not declare, of the wrong type): that is the caller's bad input, so a plain 400, and a warning
 * that names the hook so the schema can be fixed.
 */
export function runValidateHook(hook: ((input: never) => string | undefined) | undefined, input: unknown, id: string, log: PluginLogger): void {
  if (!hook) return;
  let msg: string | undefined;
  try {
    msg = hook(input as never);
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    // A hook that met a decoded file field where it expected text gets the text (a rare, slow path).
    if (hasDecodedFields(input)) return runValidateHook(hook, withStrings(input), id, log);
    log.warn({ target: id, err }, 'validate hook threw on input its schema accepted; answering 400');
    throw new InputError('Invalid input.');
  }
  if (msg) throw new InputError(msg);
}

/**
 * The executor's input checks of one target: the schema check, then its `validate` hook, with a
 * large body's decoded fields read back as text where needed without blocking the thread (a
 * field the schema does not read as a file, or one a hook meets where it expected text).
 */
export async function admitInput(check: TypeCheck<TSchema>, input: unknown, messages: Record<string, string> | undefined, hook: ((input: never) => string | undefined) | undefined, id: string, log: PluginLogger): Promise<void> {
  await settleDecodedFields(check, input);
  validateInput(check, input, messages);
  if (!hook || !hasDecodedFields(input)) return runValidateHook(hook, input, id, log);
  let msg: string | undefined;
  try {
    msg = hook(input as never);
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    return runValidateHook(hook, await withStringsAsync(input), id, log);
  }
  if (msg) throw new InputError(msg);
}
