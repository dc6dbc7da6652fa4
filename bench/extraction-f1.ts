/**
 * `npm run bench:extraction-f1` (issue 27, "Done when": token F1 on public article-extraction
 * pages stays at or above today's). Runs the main-content extractor that `scrape_page` uses for
 * `onlyMainContent`/`cleaned` (plugins/web/page-work.ts, in process: no browser, no network) on
 * each page of a public benchmark, scores it against the page's hand-made `articleBody` with the
 * benchmark's token-shingle precision/recall/F1 (bench/f1-score.ts), and does the same in the same
 * run for a second checkout of the project, so the comparison is paired: same pages, same
 * machine, same libraries (both checkouts resolve their packages from the node_modules they find).
 *
 * Each page goes in as bytes, decoded to text by the checkout's own `decodeText`
 * (core/engines/http/decode.ts, what a `renderJs: false` scrape does with a fetched body; issue 27
 * changed its charset rule) with a bare `text/html` content type, since the benchmark keeps no
 * response headers. Two outputs are scored: the markdown `scrape_page` returns (link targets and image addresses
 * are words to the tokenizer, so its precision is lower than a plain-text extractor's) and the
 * text of the same cleaned HTML laid out as innerText (plugins/web/page-text.ts), which is what
 * the benchmark's ground truth is.
 *
 * The pages are not in this repository (third-party content). Get them from one of:
 * - github.com/scrapinghub/article-extraction-benchmark: `ground-truth.json` at its root and
 *   the pages as `html/<id>.html.gz` (all 181); point F1_PAGES_DIR at the clone (gzipped pages and
 *   an `html/` subfolder are read as they are);
 * - github.com/Murrough-Foley/rs-trafilatura: `tests/benchmark_suite/<id>.html`, about 80 of
 *   the same pages uncompressed (take their `articleBody` entries from scrapinghub's
 *   `ground-truth.json`).
 * Keep them under `scratch/f1-pages/` (gitignored): `<id>.html` or `<id>.html.gz` plus
 * `ground-truth.json` ({ "<id>": { "articleBody": "…", "url": "…" } }). A page without a
 * ground-truth entry is skipped; a ground-truth entry without a page is not counted.
 *
 * Environment:
 * - F1_PAGES_DIR     the pages (default scratch/f1-pages);
 * - F1_BASELINE_DIR  another checkout to compare with, e.g. the tree before issue 27's scrape
 *                    work: `git worktree add --detach scratch/f1-baseline c8a5545` (or
 *                    `git archive c8a5545 plugins/web core/engines/http/decode.ts | tar -x -C
 *                    scratch/f1-baseline`: the files this bench loads), with a
 *                    `node_modules` link in it (`ln -s "$PWD/node_modules" scratch/f1-baseline/`);
 *                    without it only this checkout is scored;
 * - F1_DUMP_DIR      when set, each page's outputs are written there (`<id>.<checkout>.md|txt`)
 *                    for diffing;
 * - F1_PAGES         when set, at most this many pages (in id order), for a quick run;
 * - F1_VERBOSE=1     also lists each page's F1 (text and markdown) for every checkout.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pageCounts, pageF1, scores, type PageCounts, type Scores } from './f1-score.js';

interface Page {
  id: string;
  url: string;
  bytes: Uint8Array;
  truth: string;
}

/** What one checkout makes of a page's bytes: the markdown answer and the cleaned HTML's text. */
type Extract = (bytes: Uint8Array, url: string) => { markdown: string; text: string } | Promise<{ markdown: string; text: string }>;

interface Run {
  name: string;
  markdown: PageCounts[];
  text: PageCounts[];
  /** Each page's outputs, to tell the pages where two checkouts answer differently. */
  outputs: { markdown: string; text: string }[];
  ms: number;
}

const here = resolve(import.meta.dirname, '..');
const pagesDir = resolve(process.env.F1_PAGES_DIR ?? join(here, 'scratch/f1-pages'));
const baselineDir = process.env.F1_BASELINE_DIR ? resolve(process.env.F1_BASELINE_DIR) : undefined;
const dumpDir = process.env.F1_DUMP_DIR ? resolve(process.env.F1_DUMP_DIR) : undefined;
const limit = process.env.F1_PAGES ? Number(process.env.F1_PAGES) : Infinity;
const verbose = process.env.F1_VERBOSE === '1';

function loadPages(dir: string): Page[] {
  const truthFile = join(dir, 'ground-truth.json');
  if (!existsSync(truthFile)) throw new Error(`no ground-truth.json in ${dir} (see this script's header for where the pages come from)`);
  const truth = JSON.parse(readFileSync(truthFile, 'utf8')) as Record<string, { articleBody?: string; url?: string }>;
  const htmlDir = existsSync(join(dir, 'html')) ? join(dir, 'html') : dir;
  const pages: Page[] = [];
  for (const file of readdirSync(htmlDir).sort()) {
    const m = /^([0-9a-f]+)\.html(\.gz)?$/.exec(file);
    const entry = m ? truth[m[1]!] : undefined;
    if (!m || !entry) continue;
    const raw = readFileSync(join(htmlDir, file));
    pages.push({ id: m[1]!, url: entry.url ?? 'https://example.com/', bytes: m[2] ? gunzipSync(raw) : raw, truth: entry.articleBody ?? '' });
    if (pages.length >= limit) break;
  }
  return pages;
}

/**
 * The checkout's own extractor. Since issue 27 `scrape_page` calls `scrapeFormats`; before it,
 * `scrapeContent`. Either is called as the scrape lane calls it for a cleaned (main content) page.
 */
async function loadExtractor(dir: string): Promise<Extract> {
  const load = async <T>(file: string) => (await import(pathToFileURL(join(dir, file)).href)) as T;
  const work = await load<Record<string, unknown>>('plugins/web/page-work.ts');
  const { toText } = await load<{ toText: (html: string) => string }>('plugins/web/page-text.ts');
  const { decodeText } = await load<{ decodeText: (body: Uint8Array, contentType: string | undefined) => string }>('core/engines/http/decode.ts');
  const page = (bytes: Uint8Array, url: string) => ({ html: decodeText(bytes, 'text/html'), url, status: 200, contentType: 'text/html' });
  // Since 2026-11-28 linkedom loads at first use (plugins/web/html-parser.ts): a checkout that has
  // it loads it before the synchronous toText, and its scrapeFormats answers a promise.
  if (existsSync(join(dir, 'plugins/web/html-parser.ts'))) await (await load<{ loadHtmlParser: () => Promise<void> }>('plugins/web/html-parser.ts')).loadHtmlParser();
  if (typeof work.scrapeFormats === 'function') {
    const scrapeFormats = work.scrapeFormats as (a: object) => { markdown?: string; html?: string } | Promise<{ markdown?: string; html?: string }>;
    return async (bytes, url) => {
      const out = await scrapeFormats({ ...page(bytes, url), formats: ['markdown', 'html'], cleaned: true });
      return { markdown: out.markdown ?? '', text: toText(out.html ?? '') };
    };
  }
  const scrapeContent = work.scrapeContent as (a: object) => { content: string };
  return (bytes, url) => ({
    markdown: scrapeContent({ ...page(bytes, url), format: 'markdown', cleaned: true }).content,
    text: toText(scrapeContent({ ...page(bytes, url), format: 'html', cleaned: true }).content),
  });
}

async function score(name: string, dir: string, pages: Page[]): Promise<Run> {
  const extract = await loadExtractor(dir);
  const run: Run = { name, markdown: [], text: [], outputs: [], ms: 0 };
  const started = performance.now();
  for (const p of pages) {
    let out: { markdown: string; text: string };
    try {
      out = await extract(p.bytes, p.url);
    } catch (err) {
      // A page the extractor throws on scores as an empty answer: nothing right, everything missed.
      console.error(`${name}: ${p.id} failed: ${(err as Error).message}`);
      out = { markdown: '', text: '' };
    }
    run.outputs.push(out);
    run.markdown.push(pageCounts(p.truth, out.markdown));
    run.text.push(pageCounts(p.truth, out.text));
    if (dumpDir) {
      mkdirSync(dumpDir, { recursive: true });
      writeFileSync(join(dumpDir, `${p.id}.${name}.md`), out.markdown);
      writeFileSync(join(dumpDir, `${p.id}.${name}.txt`), out.text);
    }
  }
  run.ms = performance.now() - started;
  return run;
}

const f = (n: number) => n.toFixed(4);
const signed = (n: number) => (n >= 0 ? '+' : '') + n.toFixed(4);
const line = (label: string, s: Scores) => `  ${label.padEnd(22)} precision ${f(s.precision)}  recall ${f(s.recall)}  F1 ${f(s.f1)}`;

function report(pages: Page[], runs: Run[]): void {
  console.log(`pages: ${pages.length} (${pagesDir})`);
  if (runs.length === 2) {
    // The strictest paired check: the same page in, the same answer out, character for character.
    const same = pages.filter((_, i) => runs[0]!.outputs[i]!.markdown === runs[1]!.outputs[i]!.markdown && runs[0]!.outputs[i]!.text === runs[1]!.outputs[i]!.text);
    console.log(`identical output (markdown and text) from both checkouts: ${same.length} of ${pages.length} pages`);
  }
  if (verbose) {
    for (const [i, p] of pages.entries()) {
      console.log(`  ${p.id.slice(0, 12)} ${runs.map((r) => `${r.name}: text F1 ${f(pageF1(r.text[i]!))} markdown F1 ${f(pageF1(r.markdown[i]!))}`).join(' | ')}`);
    }
  }
  for (const kind of ['text', 'markdown'] as const) {
    console.log(`\n${kind === 'text' ? 'text of the cleaned HTML' : 'markdown (the scrape_page answer)'}:`);
    const all = runs.map((r) => ({ name: r.name, s: scores(r[kind]) }));
    for (const { name, s } of all) console.log(line(name, s));
    if (all.length === 2) {
      const [now, base] = [all[0]!.s, all[1]!.s];
      console.log(`  ${'difference'.padEnd(22)} precision ${signed(now.precision - base.precision)}  recall ${signed(now.recall - base.recall)}  F1 ${signed(now.f1 - base.f1)}`);
      const [a, b] = [runs[0]![kind], runs[1]![kind]];
      const worse = pages.filter((_, i) => pageF1(a[i]!) < pageF1(b[i]!) - 1e-9);
      const better = pages.filter((_, i) => pageF1(a[i]!) > pageF1(b[i]!) + 1e-9);
      console.log(`  pages: ${better.length} better, ${worse.length} worse, ${pages.length - better.length - worse.length} the same`);
      for (const p of worse) {
        const i = pages.indexOf(p);
        console.log(`    worse: ${p.id} F1 ${f(pageF1(a[i]!))} vs ${f(pageF1(b[i]!))}`);
      }
    }
  }
  console.log(`\ntime: ${runs.map((r) => `${r.name} ${(r.ms / pages.length).toFixed(1)} ms/page`).join(', ')}`);
}

const pages = loadPages(pagesDir);
if (pages.length === 0) throw new Error(`no page in ${pagesDir} has a ground-truth entry`);
const runs = [await score('current', here, pages)];
if (baselineDir) runs.push(await score('baseline', baselineDir, pages));
report(pages, runs);
