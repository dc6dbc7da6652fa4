/**
 * `includeTags` and `excludeTags` checked before any page is fetched (issue 27 audit, finding 5):
 * a selector the page's parser cannot read used to be skipped, so `["p[[["]` answered an empty
 * page and charged for it. They are checked by the parser that applies them (linkedom's, in
 * page-content.ts), so what passes here is what runs there.
 */
import { InputError } from '../../core/sdk.js';
import { loadHtmlParser, parseHtml, type HtmlDocument } from './html-parser.js';

/**
 * The empty document selectors are tried on, made at the first call that has selectors to check:
 * the parser loads then, not with the plugin (html-parser.ts), as few calls carry tags.
 */
let blank: HtmlDocument | undefined;

/** Rejects with the 400 naming the first selector of `includeTags` or `excludeTags` the parser refuses. */
export async function checkTagSelectors(input: { includeTags?: string[]; excludeTags?: string[] }): Promise<void> {
  if (!input.includeTags?.length && !input.excludeTags?.length) return;
  await loadHtmlParser();
  blank ??= parseHtml('<!doctype html><html><head></head><body></body></html>');
  for (const field of ['includeTags', 'excludeTags'] as const) {
    for (const selector of input[field] ?? []) {
      try {
        blank.querySelectorAll(selector);
      } catch (err) {
        const why = String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 200);
        throw new InputError(`'${field}' entry '${selector}' is not a valid CSS selector: ${why.charAt(0).toLowerCase()}${why.slice(1)}.`);
      }
    }
  }
}
