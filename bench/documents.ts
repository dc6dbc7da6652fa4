/**
 * Documents benchmark (issue 5): docx→PDF conversions per minute on the warm LibreOffice pool vs
 * a cold `soffice --headless --convert-to pdf` per file, same documents, same run; and a merge of
 * 20 PDFs with the PDF engine (pdf-lib) vs `qpdf --empty --pages … --`, and the same merge
 * keeping structure trees (`pdfua`). Prints the ratios against the targets (≥ 10× the cold
 * path, ≤ 1.5× qpdf time).
 *
 * Run: node --no-node-snapshot --import tsx bench/documents.ts [coldFiles=4] [warmFiles=24]
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfficeEngine } from '../core/engines/office/index.js';
import { createPdfEngine } from '../core/engines/pdf/index.js';

const coldFiles = Number(process.argv[2] ?? 4);
const warmFiles = Number(process.argv[3] ?? 24);
const log = { debug() {}, info() {}, warn: console.warn, error: console.error };
const docx = readFileSync(join(import.meta.dirname, '..', 'test', 'fixtures', 'documents', 'writer.docx'));
const dir = await mkdtemp(join(tmpdir(), 'bench-documents-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  // Cold path: one soffice process per file (a profile made beforehand, as a server would keep).
  const profile = `file://${join(dir, 'cold-profile')}`;
  await writeFile(join(dir, 'warmup.docx'), docx);
  execFileSync('soffice', [`-env:UserInstallation=${profile}`, '--headless', '--convert-to', 'pdf', '--outdir', join(dir, 'cold'), join(dir, 'warmup.docx')], { stdio: 'ignore' });
  let t = performance.now();
  for (let i = 0; i < coldFiles; i++) {
    const input = join(dir, `cold-${i}.docx`);
    await writeFile(input, docx);
    execFileSync('soffice', [`-env:UserInstallation=${profile}`, '--headless', '--convert-to', 'pdf', '--outdir', join(dir, 'cold'), input], { stdio: 'ignore' });
  }
  const coldMs = performance.now() - t;
  const coldPerMin = (coldFiles / coldMs) * 60_000;

  // Warm path: the pool (OFFICE_POOL_SIZE, default 2), started before timing, all files submitted at once.
  const office = createOfficeEngine({ dataDir: dir, publicBaseUrl: () => '', env: { ...process.env, OFFICE_QUEUE_SIZE: String(warmFiles) }, log });
  await office.warm();
  await office.convert({ data: docx, extension: 'docx' });
  t = performance.now();
  const results = await Promise.all(Array.from({ length: warmFiles }, () => office.convert({ data: docx, extension: 'docx' })));
  const warmMs = performance.now() - t;
  const warmPerMin = (warmFiles / warmMs) * 60_000;
  const pool = office.stats().size;
  await office.close();

  // Merge of 20 PDFs: pdf-lib in process vs the qpdf CLI, median of 7 runs each.
  const pdfs = results.slice(0, 20).map((r) => r.pdf);
  while (pdfs.length < 20) pdfs.push(results[0]!.pdf);
  const paths: string[] = [];
  for (const [i, p] of pdfs.entries()) {
    paths.push(join(dir, `m-${i}.pdf`));
    await writeFile(paths[i]!, p);
  }
  const pdf = createPdfEngine({ dataDir: dir, publicBaseUrl: () => '', env: process.env, log });
  const ours: number[] = [];
  const theirs: number[] = [];
  const tagged: number[] = [];
  for (let run = 0; run < 8; run++) {
    t = performance.now();
    const inputs = await Promise.all(paths.map((p) => readFile(p)));
    const merged = await pdf.merge(inputs);
    await writeFile(join(dir, 'ours.pdf'), merged.pdf);
    if (run > 0) ours.push(performance.now() - t);
    t = performance.now();
    execFileSync('qpdf', ['--empty', '--pages', ...paths, '--', join(dir, 'qpdf.pdf')]);
    if (run > 0) theirs.push(performance.now() - t);
    // The `pdfua` path: the same merge keeping (and renumbering) every input's structure tree.
    t = performance.now();
    await pdf.merge(await Promise.all(paths.map((p) => readFile(p))), { keepStructure: true });
    if (run > 0) tagged.push(performance.now() - t);
  }
  const pages = await pdf.pageCount(await readFile(join(dir, 'ours.pdf')));

  const ratio = warmPerMin / coldPerMin;
  const mergeRatio = median(ours) / median(theirs);
  console.log(`docx→PDF cold soffice per file : ${coldPerMin.toFixed(1)} conversions/min (${(coldMs / coldFiles).toFixed(0)} ms each, ${coldFiles} files)`);
  console.log(`docx→PDF warm pool (size ${pool})     : ${warmPerMin.toFixed(1)} conversions/min (${(warmMs / warmFiles).toFixed(0)} ms each, ${warmFiles} files)`);
  console.log(`  ratio warm/cold = ${ratio.toFixed(1)}×  (target ≥ 10×) ${ratio >= 10 ? 'OK' : 'MISSED'}`);
  console.log(`merge 20 PDFs (${pages} pages): pdf-lib ${median(ours).toFixed(1)} ms, qpdf CLI ${median(theirs).toFixed(1)} ms (medians of 7)`);
  console.log(`  ratio pdf-lib/qpdf = ${mergeRatio.toFixed(2)}×  (target ≤ 1.5×) ${mergeRatio <= 1.5 ? 'OK' : 'MISSED'}`);
  console.log(`  keeping structure trees (pdfua): ${median(tagged).toFixed(1)} ms (median of 7, no target)`);
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true }).catch(() => {});
}
