/**
 * Office work bounded (issue 24, finding 1), through the real server: zip bombs in OOXML and ODF
 * inputs are refused from their ZIP directory before LibreOffice sees them (convert-to-pdf by
 * base64 and URL, doc-to-text), free; a document that passes admission but needs more memory
 * than a worker may use is a free 400, under a memory cgroup and under an address-space limit
 * alike; a caller's hang-up kills the running conversion; the queue serves keys in turn. Caps
 * are lowered by environment so the bombs stay small.
 *
 * Two servers: `s` admits ZIP archives under low caps, has a conversion timeout no test reaches
 * (so only a hang-up can end the abandoned conversion) and a memory cgroup where the host lets
 * one be made (a bomb that reached LibreOffice on code without admission meets the low memory cap
 * or converts: an answer the assertions refuse, not a test that runs out of time); `roomy` admits
 * large archives, so its bombs reach LibreOffice, whose worker is capped by address space only
 * (`OFFICE_MEMORY_CGROUP` false).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { pluginsConfig } from './helpers/plugins.js';
import { startServers, type TestServer } from './helpers/server.js';
import { docx, odt, zip } from './helpers/zip.js';

let s: TestServer;
let roomy: TestServer;
let scratch: string;
let officeDir: string;
let roomyDir: string;
let key: string;
let roomyKey: string;
let origin: Server;
let originUrl: string;
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');
const files = new Map<string, Buffer>();

/** A DOCX declaring ~20 MB of XML in ~20 KB (over the 5 MB total cap set below). */
const docxBomb = docx(600_000);
/** An ODT whose content.xml (~4.3 MB, under the total cap) is compressed far past the 100× ratio. */
const odtBomb = odt(240_000);
/**
 * A spreadsheet whose one row of 1,000 numbers is repeated a million times: a few hundred bytes
 * that admission cannot refuse (nothing is large or compressed), and a billion cells for Calc.
 */
const repeatedCells = '<table:table table:name="S"><table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="1000" office:value-type="float" office:value="1"><text:p>1</text:p></table:table-cell></table:table-row></table:table>';
const SHEET_NS = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"';
const odsCellBomb = zip([
  { name: 'mimetype', data: 'application/vnd.oasis.opendocument.spreadsheet', store: true },
  { name: 'META-INF/manifest.xml', data: '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>' },
  { name: 'content.xml', data: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${SHEET_NS}><office:body><office:spreadsheet>${repeatedCells}</office:spreadsheet></office:body></office:document-content>` },
]);
/** The same sheet as a flat XML file (`.fods`): not a ZIP at all. */
const fodsCellBomb = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><office:document ${SHEET_NS} office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet>${repeatedCells}</office:spreadsheet></office:body></office:document>`);
/**
 * The memory cap of every worker here: low, so a bomb meets it after less work than a higher cap
 * needs, yet some 180 MB above what an ordinary conversion maps (a jailed soffice.bin maps some
 * 616 MB once started and peaks near 720 MB after a small text or DOCX; at 700 MB a warm-up
 * conversion failed under the address-space limit).
 */
const MEMORY_MB = 900;
/** The DOCX bomb, smaller: 3 million paragraphs (100 MB of XML) in 300 KB; Writer aborts on std::bad_alloc under the cap. */
let writerBomb: Buffer;
const overMemory = `The document needs more than the ${MEMORY_MB} MB of memory one conversion may use.`;

/** An XLSX with more entries than the 100 allowed below. */
const xlsxMany = zip([
  { name: '[Content_Types].xml', data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
  ...Array.from({ length: 150 }, (_, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data: '<worksheet/>' })),
]);

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'documents-bounded-'));
  officeDir = join(scratch, 'office');
  roomyDir = join(scratch, 'office-roomy');
  writerBomb = docx(3_000_000);
  files.set('/bomb.docx', docxBomb);
  files.set('/bomb.odt', odtBomb);
  origin = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  const common = { OFFICE_POOL_SIZE: '1', ALLOW_PRIVATE_NETWORK: 'true', OFFICE_ZIP_MAX_UNCOMPRESSED_MB: '5', OFFICE_ZIP_MAX_ENTRIES: '100', OFFICE_MEMORY_MB: String(MEMORY_MB) };
  [s, roomy] = await startServers([
    // Only the hang-up may end the abandoned conversion below, never the conversion timeout.
    { serviceConfig: pluginsConfig(['documents', 'doc_text']), env: { ...common, OFFICE_WORK_DIR: officeDir, OFFICE_TIMEOUT_MS: '600000' } },
    // Bombs admitted; the worker capped by RLIMIT_AS alone.
    { serviceConfig: pluginsConfig(['documents', 'doc_text']), env: { ...common, OFFICE_WORK_DIR: roomyDir, OFFICE_TIMEOUT_MS: '120000', OFFICE_MEMORY_CGROUP: 'false', OFFICE_ZIP_MAX_UNCOMPRESSED_MB: '512', OFFICE_ZIP_MAX_RATIO: '100000' } },
  ]);
  ({ key } = await s.createKey({ credits: 10_000 }));
  ({ key: roomyKey } = await roomy.createKey({ credits: 10_000 }));
});
after(async () => {
  await s?.close();
  await roomy?.close();
  origin?.close();
  await rm(scratch, { recursive: true, force: true });
});

const balance = async (k = key, server = s) => (await server.call('GET', '/api/v2/balance', { key: k })).json.data.credits;
const convert = (body: unknown, k = key) => s.call('POST', '/api/v1/convert-to-pdf', { key: k, body });
const convertRoomy = (body: unknown) => roomy.call('POST', '/api/v1/convert-to-pdf', { key: roomyKey, body });

/** The soffice.bin processes of the pool working in `dir`. */
function sofficePids(dir = officeDir): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (cmd.includes('soffice.bin') && cmd.includes(dir)) pids.push(Number(p));
    } catch {
      /* exited meanwhile */
    }
  }
  return pids;
}

/** Resident memory of the pool's soffice.bin processes, in bytes. */
function sofficeRss(): number {
  let total = 0;
  for (const pid of sofficePids()) {
    try {
      total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      /* exited meanwhile */
    }
  }
  return total;
}

/** Whether a job has been handed to the worker of `s` (its input moved into the worker's job dir). */
function inWorker(): boolean {
  if (!existsSync(officeDir)) return false;
  return readdirSync(officeDir)
    .filter((d) => d.endsWith('.job'))
    .some((d) => readdirSync(join(officeDir, d)).some((f) => f.startsWith('input.')));
}

/** Jobs staged and waiting for the worker of `s` (their input still in the pool's staging dir). */
function waitingJobs(): number {
  const dir = join(officeDir, 'jobs');
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).filter((d) => {
    try {
      return readdirSync(join(dir, d)).some((f) => f.startsWith('input'));
    } catch {
      return false;
    }
  }).length;
}

const until = async (what: () => boolean) => {
  while (!what()) await new Promise((r) => setTimeout(r, 10));
};

/**
 * Whether process `pid` is gone within 10 s. A killed LibreOffice leaves /proc once it is reaped,
 * which on a loaded machine may come a moment after the next conversion is answered; one that
 * was not killed stays in the pool for good, so the bound still tells the two apart.
 */
const goneSoon = async (pid: number) => {
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    if (!runs(pid)) return true;
  }
  return false;
};

/** Whether `pid` still runs: a killed process its parent has not reaped yet (a zombie) does not. */
function runs(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** A text long enough to keep the one worker busy for a while. */
const longText = (lines: number) => Array.from({ length: lines }, (_, i) => `Line ${i} of a long document that takes a while to lay out.`).join('\n');

test('a DOCX zip bomb is refused before LibreOffice, free: convert-to-pdf (base64 and URL) and doc-to-text', async () => {
  // The pool is up and idle; its memory is the baseline.
  assert.equal((await convert({ inputMethod: 'base64', file: b64('warm up') })).status, 200);
  const start = await balance();
  const rss = sofficeRss();
  const pids = sofficePids();
  const expected = /^The \.docx file declares more than 5 MB of uncompressed content, the most this service opens\.$/;
  const viaBase64 = await convert({ inputMethod: 'base64', file: b64(docxBomb) });
  assert.equal(viaBase64.status, 400, viaBase64.text);
  assert.match(viaBase64.json.error, expected);
  const viaUrl = await convert({ inputMethod: 'url', file: `${originUrl}/bomb.docx` });
  assert.equal(viaUrl.status, 400, viaUrl.text);
  assert.match(viaUrl.json.error, expected);
  const text = await s.call('POST', '/api/v1/doc-to-text', { key, body: { inputMethod: 'base64', file: b64(docxBomb) } });
  assert.equal(text.status, 400, text.text);
  assert.match(text.json.error, expected);
  assert.equal(await balance(), start);
  // LibreOffice never saw them: the same process, no growth.
  assert.deepEqual(sofficePids(), pids);
  assert.ok(sofficeRss() < rss + 50 * 1024 * 1024, `soffice.bin grew from ${rss} to ${sofficeRss()} bytes`);
});

test('variants: an ODT over the compression ratio, an XLSX with too many entries; a normal DOCX still converts', async () => {
  const start = await balance();
  const ratio = await convert({ inputMethod: 'url', file: `${originUrl}/bomb.odt` });
  assert.equal(ratio.status, 400, ratio.text);
  assert.match(ratio.json.error, /^The \.odt file is refused: its part 'content\.xml' expands \d+ times \(\d+ MB\), more than the 100× this service opens\.$/);
  const ratioText = await s.call('POST', '/api/v1/doc-to-text', { key, body: { inputMethod: 'base64', file: b64(odtBomb), fileExtension: 'odt' } });
  assert.equal(ratioText.status, 400, ratioText.text);
  assert.match(ratioText.json.error, /content\.xml' expands/);
  const many = await convert({ inputMethod: 'base64', file: b64(xlsxMany) });
  assert.equal(many.status, 400, many.text);
  assert.equal(many.json.error, 'The .xlsx file holds 151 archive entries, more than the 100 this service opens.');
  assert.equal(await balance(), start);
  const fine = await convert({ inputMethod: 'base64', file: b64(docx(3, 'Ordinary')) });
  assert.equal(fine.status, 200, fine.text);
  assert.equal(await balance(), start - 50);
});

test('documents past the memory cap, under an address-space limit: a free 400 (a DOCX bomb, a spreadsheet of a billion cells; convert-to-pdf and doc-to-text), the worker replaced', async () => {
  assert.equal((await convertRoomy({ inputMethod: 'base64', file: b64('warm up') })).status, 200);
  const start = await balance(roomyKey, roomy);
  for (const [what, send] of [
    ['DOCX bomb', () => convertRoomy({ inputMethod: 'base64', file: b64(writerBomb) })],
    ['ODS', () => convertRoomy({ inputMethod: 'base64', file: b64(odsCellBomb) })],
    ['FODS to text', () => roomy.call('POST', '/api/v1/doc-to-text', { key: roomyKey, body: { inputMethod: 'base64', file: b64(fodsCellBomb), fileExtension: 'fods' } })],
  ] as const) {
    await until(() => sofficePids(roomyDir).length > 0);
    const [before] = sofficePids(roomyDir);
    const r = await send();
    assert.equal(r.status, 400, `${what}: ${r.text}`);
    assert.equal(r.json.error, overMemory, what);
    // The LibreOffice that ran out is not trusted with the next document: a fresh one converts it.
    const next = await convertRoomy({ inputMethod: 'base64', file: b64(`after the ${what}`) });
    assert.equal(next.status, 200, next.text);
    assert.ok(await goneSoon(before), `${what}: soffice.bin ${before} still runs`);
  }
  assert.equal(await balance(roomyKey, roomy), start - 3 * 50);
});

test('a hang-up mid-conversion kills the running LibreOffice; nothing is charged and the next conversion works', async () => {
  assert.equal((await convert({ inputMethod: 'base64', file: b64('warm up') })).status, 200);
  const start = await balance();
  await until(() => sofficePids().length > 0);
  const [before] = sofficePids();
  const ctl = new AbortController();
  const pending = fetch(`${s.url}/api/v1/convert-to-pdf`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ inputMethod: 'base64', file: b64(longText(40_000)) }),
    signal: ctl.signal,
  }).catch((err: Error) => err);
  await until(inWorker);
  await new Promise((r) => setTimeout(r, 200));
  ctl.abort();
  assert.ok((await pending) instanceof Error);
  // The next conversion is served by a fresh LibreOffice: the one converting the abandoned document is gone.
  const next = await convert({ inputMethod: 'base64', file: b64('after the hang-up') });
  assert.equal(next.status, 200, next.text);
  assert.ok(await goneSoon(before), `soffice.bin ${before} still runs`);
  assert.equal(await balance(), start - 50);
});

test("key B's first conversion is served before key A's backlog is done", async () => {
  const b = (await s.createKey({ credits: 1000 })).key;
  const order: string[] = [];
  const send = (name: string, k: string, text: string) =>
    convert({ inputMethod: 'base64', file: b64(text) }, k).then((r) => {
      assert.equal(r.status, 200, r.text);
      order.push(name);
    });
  // Only A1 must be long (still converting when B1 arrives); A's waiting two need only outlast
  // B1's answer once one of them is converted, so they are a few pages, not A1's hundreds.
  const a1 = send('A1', key, longText(8_000));
  await until(inWorker);

  const a2 = send('A2', key, longText(2_000));
  const a3 = send('A3', key, longText(2_000));
  await until(() => waitingJobs() >= 2);
  const b1 = send('B1', b, 'key B');
  await Promise.all([a1, a2, a3, b1]);
  // A1 was running when B1 arrived; B1 is converted next, before A's waiting two (answers may
  // overtake each other after their conversion, so only B1 against A2 and A3 is certain).
  assert.ok(order.indexOf('B1') < order.indexOf('A2') && order.indexOf('B1') < order.indexOf('A3'), order.join(' '));
  assert.equal(await balance(b), 1000 - 50);
});

test('the same spreadsheet under a memory cgroup (where one can be made): a free 400', async () => {
  const start = await balance();
  const ods = await convert({ inputMethod: 'base64', file: b64(odsCellBomb) });
  assert.equal(ods.status, 400, ods.text);
  assert.equal(ods.json.error, overMemory);
  assert.equal(await balance(), start);
  const next = await convert({ inputMethod: 'base64', file: b64('after the spreadsheet') });
  assert.equal(next.status, 200, next.text);
});

test('each LibreOffice process runs under the memory cap: its memory cgroup, or an address-space limit', async () => {
  const cap = MEMORY_MB * 1024 * 1024;
  // OFFICE_MEMORY_CGROUP=false: an address-space limit, wherever the service runs.
  await until(() => sofficePids(roomyDir).length > 0);
  assert.match(readFileSync(`/proc/${sofficePids(roomyDir)[0]}/limits`, 'utf8'), new RegExp(`Max address space\\s+${cap}\\s+${cap}`));
  await until(() => sofficePids().length > 0);
  const [pid] = sofficePids();
  const groups = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const v1 = groups.find((l) => l.split(':')[1]?.split(',').includes('memory'))?.split(':')[2];
  const v2 = groups.find((l) => l.startsWith('0::'))?.slice(3);
  const limitFile = existsSync('/sys/fs/cgroup/cgroup.controllers') ? `/sys/fs/cgroup${v2}/memory.max` : `/sys/fs/cgroup/memory${v1}/memory.limit_in_bytes`;
  const inGroup = existsSync(limitFile) && /cia-sandbox-/.test(limitFile);
  if (inGroup) assert.equal(Number(readFileSync(limitFile, 'utf8').trim()), cap);
  else assert.match(readFileSync(`/proc/${pid}/limits`, 'utf8'), new RegExp(`Max address space\\s+${cap}\\s+${cap}`));
});
