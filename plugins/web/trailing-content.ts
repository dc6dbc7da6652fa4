/**
 * Content after `</body>` or `</html>` (issue 27 audit): a browser's parser puts it in the body,
 * so the rendered page shows it, but linkedom drops it, so the plain fetch's answer lacked text
 * the browser's had. Such a document is given to linkedom with those end tags moved to its end.
 */

const END_TAGS = /<\/(?:body|html)\s*>/gi;

/** Where the last match of `re` (global) starts in `text`, or -1. One pass: a page may repeat the tag. */
function lastMatch(text: string, re: RegExp): number {
  let at = -1;
  for (const m of text.matchAll(re)) at = m.index;
  return at;
}

/** `text` without its HTML comments (an unclosed one runs to the end, as in a browser). */
function withoutComments(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = text.indexOf('<!--', from);
    if (open < 0) return out + text.slice(from);
    out += text.slice(from, open);
    const close = text.indexOf('-->', open + 4);
    if (close < 0) return out;
    from = close + 3;
  }
}

/** `html` with its trailing content inside the body; unchanged when nothing but space or comments follows the end tags. */
export function withTrailingContentInBody(html: string): string {
  const body = lastMatch(html, /<\/body\s*>/gi);
  const at = body >= 0 ? body : lastMatch(html, /<\/html\s*>/gi);
  if (at < 0) return html;
  const tail = html.slice(at);
  if (!withoutComments(tail.replace(END_TAGS, '')).trim()) return html;
  return `${html.slice(0, at)}${tail.replace(END_TAGS, '')}</body></html>`;
}
