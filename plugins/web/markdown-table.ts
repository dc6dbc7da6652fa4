/**
 * HTML tables → GFM tables for turndown (spec §4.5: "Markdown is GFM (tables…)").
 *
 * turndown-plugin-gfm keeps every table whose first row is not all `<th>` as raw HTML (most
 * tables on the web), does not escape `|` inside cells, and throws on a table without rows
 * (`<table></table>`, a caption alone). These rules replace its table handling: the cells are
 * converted by turndown as usual (links, emphasis, code) and stashed, then the table rule lays
 * them out on a grid built from the DOM, so spans, missing cells and empty tables are all handled
 * in one place.
 */
import type TurndownService from 'turndown';

/** The DOM surface turndown hands to rules (domino under Node); only what the layout needs. */
interface El {
  nodeName: string;
  nodeType: number;
  childNodes: ArrayLike<El>;
  getAttribute(name: string): string | null;
}

/** Converted markdown of each cell and caption, read by the table rule that encloses them. */
const converted = new WeakMap<object, string>();

const SECTION = new Set(['THEAD', 'TBODY', 'TFOOT']);
// HTML caps colspan at 1000; rowspan is clamped to the rows that exist.
const MAX_COLSPAN = 1000;
/**
 * Grid slots one table may fill. Spans multiply (a 10 MB page of `colspan=999` rows would ask
 * for hundreds of millions); past this the table is rendered as lines of text instead.
 */
const MAX_GRID_SLOTS = 200_000;

function elements(node: El): El[] {
  return Array.from(node.childNodes).filter((n) => n.nodeType === 1);
}

function span(cell: El, attr: string, max: number): number {
  const n = Number.parseInt(cell.getAttribute(attr) ?? '', 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, max) : 1;
}

/**
 * The table's own rows (not those of nested tables) in display order: `<thead>` rows first, then
 * the body rows and bare `<tr>`s, `<tfoot>` last. `headRows` says how many came from `<thead>`.
 */
function rowsOf(table: El): { rows: El[]; headRows: number; caption?: El } {
  const head: El[] = [];
  const body: El[] = [];
  const foot: El[] = [];
  let caption: El | undefined;
  for (const child of elements(table)) {
    if (child.nodeName === 'CAPTION') caption ??= child;
    else if (child.nodeName === 'TR') body.push(child);
    else if (SECTION.has(child.nodeName)) {
      const trs = elements(child).filter((r) => r.nodeName === 'TR');
      (child.nodeName === 'THEAD' ? head : child.nodeName === 'TFOOT' ? foot : body).push(...trs);
    }
  }
  return { rows: [...head, ...body, ...foot], headRows: head.length, caption };
}

/** A cell's markdown on one line: line breaks become `<br>` and every `|` is escaped. */
function cellText(cell: El): string {
  const md = (converted.get(cell) ?? '').trim();
  return md
    .replace(/\s*\n\s*(\n\s*)*/g, '<br>')
    // A pipe is literal when an odd number of backslashes precede it; add one where the count is even.
    .replace(/(\\*)\|/g, (m: string, slashes: string) => (slashes.length % 2 === 0 ? `\\${m}` : m));
}

/** Column alignment of a header cell (`align` or an inline `text-align`). */
function alignment(cell: El | undefined): string {
  if (!cell) return '---';
  const style = /text-align\s*:\s*(left|right|center)/i.exec(cell.getAttribute('style') ?? '')?.[1];
  const align = (cell.getAttribute('align') ?? style ?? '').toLowerCase();
  return align === 'left' ? ':--' : align === 'right' ? '--:' : align === 'center' ? ':-:' : '---';
}

/**
 * Lays the rows out on a grid. A cell spanning several columns or rows keeps its text in its
 * first slot and leaves the others empty, so every column stays under its header.
 */
function grid(rows: El[]): { text: string[][]; origin: (El | undefined)[][] } | undefined {
  const text: string[][] = rows.map(() => []);
  const origin: (El | undefined)[][] = rows.map(() => []);
  let slots = 0;
  for (const [r, tr] of rows.entries()) {
    let c = 0;
    for (const cell of elements(tr)) {
      if (cell.nodeName !== 'TD' && cell.nodeName !== 'TH') continue;
      while (text[r]![c] !== undefined) c++;
      const cols = span(cell, 'colspan', MAX_COLSPAN);
      // rowspan="0" reaches the last row.
      const rowsSpanned = cell.getAttribute('rowspan')?.trim() === '0' ? rows.length - r : span(cell, 'rowspan', rows.length - r);
      slots += cols * rowsSpanned;
      if (slots > MAX_GRID_SLOTS) return undefined;
      for (let dr = 0; dr < rowsSpanned; dr++) {
        for (let dc = 0; dc < cols; dc++) {
          text[r + dr]![c + dc] = dr === 0 && dc === 0 ? cellText(cell) : '';
          origin[r + dr]![c + dc] = dr === 0 && dc === 0 ? cell : undefined;
        }
      }
      c += cols;
    }
  }
  return { text, origin };
}

/** A table too large to lay out: its rows as lines of cell text. */
function plainRows(rows: El[]): string {
  return rows
    .map((tr) => elements(tr).filter((c) => c.nodeName === 'TD' || c.nodeName === 'TH').map(cellText).join(' '))
    .filter((l) => l.trim())
    .join('\n\n');
}

function line(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** Markdown of one table element (the rule's replacement). */
function tableMarkdown(table: El): string {
  const { rows, caption } = rowsOf(table);
  const captionText = caption ? (converted.get(caption) ?? '').trim() : '';
  const laid = grid(rows);
  if (!laid) return `\n\n${captionText ? `${captionText}\n\n` : ''}${plainRows(rows)}\n\n`;
  const { text, origin } = laid;
  const width = Math.max(0, ...text.map((r) => r.length));
  const filled = text.filter((r) => r.length > 0);
  // No cells at all: nothing but the caption (if any) is left to show.
  if (width === 0 || filled.length === 0) return captionText ? `\n\n${captionText}\n\n` : '\n\n';
  // One cell is a layout box, not data: its content stands on its own.
  if (width === 1 && filled.length === 1) {
    const only = (converted.get(origin[text.indexOf(filled[0]!)]![0] as object) ?? '').trim();
    return `\n\n${captionText ? `${captionText}\n\n` : ''}${only}\n\n`;
  }
  const pad = (r: string[]) => Array.from({ length: width }, (_, i) => r[i] ?? '');
  // The first row is the header, whether it is a <thead>, a row of <th> or (most tables) <td>s.
  const [header, ...body] = filled.map(pad);
  const headerCells = origin[text.indexOf(filled[0]!)]!;
  const out = [line(header!), line(Array.from({ length: width }, (_, i) => alignment(headerCells[i]))), ...body.map(line)];
  return `\n\n${captionText ? `${captionText}\n\n` : ''}${out.join('\n')}\n\n`;
}

/** The turndown plugin: GFM tables for every `<table>`, including empty and caption-only ones. */
export function gfmTables(service: TurndownService): void {
  const stash = (content: string, node: unknown) => {
    converted.set(node as object, content);
    return '';
  };
  service.addRule('tableCell', { filter: ['th', 'td'], replacement: stash });
  service.addRule('tableCaption', { filter: ['caption'], replacement: stash });
  // Rows, sections and column groups only structure the grid the table rule reads from the DOM.
  service.addRule('tableStructure', { filter: ['tr', 'thead', 'tbody', 'tfoot', 'colgroup', 'col'], replacement: () => '' });
  service.addRule('table', { filter: ['table'], replacement: (_content, node) => tableMarkdown(node as unknown as El) });
}
