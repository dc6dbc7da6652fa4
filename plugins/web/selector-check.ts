/**
 * `includeTags` and `excludeTags` checked before any page is fetched (issue 27 audit, finding 5):
 * a selector the page's parser cannot read used to be skipped, so `["p[[["]` answered an empty
 * page and charged for it. They are checked by the parser that applies them (linkedom's, in
 * page-content.ts), so what passes here is what runs there.
 */
import { parseHTML } from 'linkedom';
import { InputError } from '../../core/sdk.js';

let blank: ReturnType<typeof parseHTML>['document'] | undefined;

/** Throws the 400 naming the first selector of `includeTags` or `excludeTags` the parser refuses. */
export function checkTagSelectors(input: { includeTags?: string[]; excludeTags?: string[] }): void {
  for (const field of ['includeTags', 'excludeTags'] as const) {
    for (const selector of input[field] ?? []) {
      blank ??= parseHTML('<!doctype html><html><head></head><body></body></html>').document;
      try {
        blank.querySelectorAll(selector);
      } catch (err) {
        const why = String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 200);
        throw new InputError(`'${field}' entry '${selector}' is not a valid CSS selector: ${why.charAt(0).toLowerCase()}${why.slice(1)}.`);
      }
    }
  }
}
