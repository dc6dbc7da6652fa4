/**
 * HTML → plain text for the `text` format of crawl, extract's `text` and the fallback when
 * markdown cannot be made (issue 19 item 1). Laid out as a browser's `innerText` lays out a page:
 * block elements (headings, list items, nav, section, div…) start and end a line, a paragraph is
 * set off by a blank line, table cells are separated by a tab and rows by a line, `<br>` breaks a
 * line, inline elements (`b`, `a`, `span`…) run on; never more than one blank line in a row.
 *
 * The walk is iterative: this is also the fallback for pages nested too deep for the markdown
 * converter, and recursion would overflow the stack on exactly those.
 */
import { parseHtml } from './html-parser.js';

/** Not content: never rendered as text, or removed from markdown too (form controls, embeds). */
const SKIP = new Set([
  'script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'base',
  'svg', 'iframe', 'object', 'embed', 'canvas', 'audio', 'video',
  'select', 'button', 'input', 'textarea', 'datalist',
]);

/** Elements laid out as blocks by a browser's default style sheet: each starts and ends a line. */
const BLOCK = new Set([
  'html', 'body', 'address', 'article', 'aside', 'blockquote', 'center', 'dd', 'details', 'dialog', 'dir', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr',
  'legend', 'li', 'listing', 'main', 'menu', 'nav', 'ol', 'optgroup', 'option', 'pre', 'search', 'section', 'summary',
  'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'ul', 'xmp', 'plaintext',
]);

/** Whitespace is kept as written inside these (`white-space: pre`). */
const PRE = new Set(['pre', 'listing', 'xmp', 'plaintext']);

type Node = { nodeType: number; nodeValue: string | null; localName?: string; firstChild: Node | null; nextSibling: Node | null; nextElementSibling?: Node | null };

/**
 * Accumulates text and the line breaks blocks require, and collapses them as `innerText` does.
 * Pieces are kept in an array and only their ends are looked at: a 10 MB page has hundreds of
 * thousands of pieces, and rescanning the whole text per piece would be quadratic.
 */
class Layout {
  private readonly parts: string[] = [];
  /** Line breaks required before the next text (the largest asked for wins). */
  private pending = 0;

  text(s: string, pre: boolean): void {
    if (!pre) s = s.replace(/[ \t\n\r\f\u00a0]+/g, ' ');
    if (!s) return;
    this.flush();
    // Collapsed spaces at the start of a line, or after a space or a cell's tab, are not rendered.
    if (!pre && s[0] === ' ' && (this.parts.length === 0 || ' \n\t'.includes(this.lastChar()))) s = s.slice(1);
    if (s) this.parts.push(s);
  }

  /** `<br>`: a line break of its own, counted towards what a following block requires. */
  lineBreak(): void {
    this.flush();
    this.trimSpaces();
    this.parts.push('\n');
  }

  cellEnd(): void {
    this.flush();
    this.trimSpaces();
    this.parts.push('\t');
  }

  require(n: number): void {
    this.pending = Math.max(this.pending, n);
  }

  private flush(): void {
    if (!this.pending) return;
    const n = this.pending;
    this.pending = 0;
    // Breaks at the very start are dropped; those already written (a `<br>`) count towards n.
    if (this.parts.length === 0) return;
    this.trimSpaces();
    const have = this.trailingNewlines();
    if (n > have) this.parts.push('\n'.repeat(n - have));
  }

  private lastChar(): string {
    const last = this.parts[this.parts.length - 1] ?? '';
    return last[last.length - 1] ?? '';
  }

  private trimSpaces(): void {
    while (this.parts.length > 0) {
      const last = this.parts[this.parts.length - 1]!;
      let end = last.length;
      while (end > 0 && last[end - 1] === ' ') end--;
      if (end > 0) {
        this.parts[this.parts.length - 1] = last.slice(0, end);
        return;
      }
      this.parts.pop();
    }
  }

  private trailingNewlines(): number {
    let n = 0;
    for (let i = this.parts.length - 1; i >= 0; i--) {
      const p = this.parts[i]!;
      let j = p.length;
      while (j > 0 && p[j - 1] === '\n') j--;
      n += p.length - j;
      if (j > 0) break;
    }
    return n;
  }

  /** The text: at most one blank line in a row, no blank lines or trailing spaces at either end. */
  result(): string {
    return this.parts.join('').replace(/\n{3,}/g, '\n\n').replace(/^\n+/, '').trimEnd();
  }
}

/** HTML fragment or document → readable plain text (see the file comment for the layout); the parser must be loaded (html-parser.ts). */
export function toText(html: string): string {
  const document = parseHtml(`<!doctype html><html><body>${html}</body></html>`);
  const layout = new Layout();
  // Each entry is a node to enter, or (exit) an element whose end is due.
  const stack: { node: Node; exit?: boolean; pre: boolean }[] = [];
  const root = (document.body ?? document.documentElement) as unknown as Node | null;
  for (let c = root?.firstChild ?? null; c; c = c.nextSibling) stack.push({ node: c, pre: false });
  stack.reverse();
  while (stack.length > 0) {
    const { node, exit, pre } = stack.pop()!;
    if (node.nodeType === 3) {
      layout.text(node.nodeValue ?? '', pre);
      continue;
    }
    if (node.nodeType !== 1) continue;
    const tag = node.localName ?? '';
    if (exit) {
      if (tag === 'td' || tag === 'th') {
        // A tab after every cell but the row's last.
        for (let n = node.nextElementSibling; n; n = n.nextElementSibling ?? null) {
          if (n.localName === 'td' || n.localName === 'th') {
            layout.cellEnd();
            break;
          }
        }
      } else if (BLOCK.has(tag) || tag === 'p') layout.require(tag === 'p' ? 2 : 1);
      continue;
    }
    if (SKIP.has(tag)) continue;
    if (tag === 'br') {
      layout.lineBreak();
      continue;
    }
    if (BLOCK.has(tag) || tag === 'p') layout.require(tag === 'p' ? 2 : 1);
    const inPre = pre || PRE.has(tag);
    // As the HTML parser does, a newline right after <pre> is not content.
    const first = node.firstChild;
    if (PRE.has(tag) && first?.nodeType === 3 && first.nodeValue?.startsWith('\n')) first.nodeValue = first.nodeValue.slice(1);
    stack.push({ node, exit: true, pre });
    const children: Node[] = [];
    for (let c = node.firstChild; c; c = c.nextSibling) children.push(c);
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, pre: inPre });
  }
  return layout.result();
}
