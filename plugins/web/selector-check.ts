/**
 * `includeTags` and `excludeTags` checked before any page is fetched (issue 27 audit, finding 5):
 * a selector the page's parser cannot read used to be skipped, so `["p[[["]` answered an empty
 * page and charged for it. They are checked by the parser that applies them (linkedom's, in
 * page-content.ts), so what passes here is what runs there.
 */
import type { parseHTML } from 'linkedom';
import { InputError } from '../../core/sdk.js';

type Doc = ReturnType<typeof parseHTML>['document'];

/**
 * The empty document selectors are tried on, made at the first call that has selectors to check.
 * linkedom is loaded then and not with the plugin: it is some 120 modules and a third of a second
 * of CPU on the serving thread that every process starting a server paid (bench:boot), while few
 * calls carry tags. One promise, so concurrent first calls share the one import.
 */
let blank: Promise<Doc> | undefined;

function blankDocument(): Promise<Doc> {
  blank ??= import('linkedom').then(
    ({ parseHTML }) => parseHTML('<!doctype html><html><head></head><body></body></html>').document,
    (err: unknown) => {
      // A failed import is not kept: the next call tries again.
      blank = undefined;
      throw err;
    },
  );
  return blank;
}

/** Rejects with the 400 naming the first selector of `includeTags` or `excludeTags` the parser refuses. */
export async function checkTagSelectors(input: { includeTags?: string[]; excludeTags?: string[] }): Promise<void> {
  if (!input.includeTags?.length && !input.excludeTags?.length) return;
  const doc = await blankDocument();
  for (const field of ['includeTags', 'excludeTags'] as const) {
    for (const selector of input[field] ?? []) {
      try {
        doc.querySelectorAll(selector);
      } catch (err) {
        const why = String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 200);
        throw new InputError(`'${field}' entry '${selector}' is not a valid CSS selector: ${why.charAt(0).toLowerCase()}${why.slice(1)}.`);
      }
    }
  }
}
