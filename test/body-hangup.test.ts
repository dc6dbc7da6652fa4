/**
 * A caller who hangs up before the handler has read a large body's file (issue 24): the request's
 * body folder goes once the response has closed, so a handler that reads its input afterwards
 * finds no file. That must be a clean cancellation on every lane: nothing logged as a warning or
 * an error, nothing charged, the folder gone, and nothing started after the hang-up.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startService, type RunningServer } from '../server/start.js';
import { EMBEDDED_DB_TEMPLATE, request } from './helpers/server.js';
import { testServiceConfig } from './fixtures/test-plugins.js';
import { bodyScratchPrefix } from '../server/body/body-scratch.js';
import { Type, defineEndpoint, definePlugin, flat, inputBytes, loadInput, withScratch, writeInputFile } from '../core/sdk.js';

/** Calls the test plugin has seen: each resolves `reached` once running, and reads its input when `go` resolves. */
const seen: { reached: () => void; go: Promise<void>; read?: 'copied' | 'bytes' }[] = [];
let onRun: ((mode: string) => { reached: () => void; go: Promise<void> }) | undefined;
/** Work the plugin started after its read (none may start once the caller has gone), and its runs that have ended. */
let startedAfterRead = 0;
let ended = 0;

const LateInput = Type.Object({
  inputMethod: Type.Literal('base64', { description: 'How the file is sent.' }),
  file: Type.String({ description: 'The file.' }),
  mode: Type.Union([Type.Literal('copy'), Type.Literal('bytes')], { description: 'How the handler reads it.' }),
});

const late = definePlugin({
  id: 'test_late',
  apiVersion: 1,
  title: 'Late reader',
  summary: 'Reads its input file only when the test lets it.',
  endpoints: [
    defineEndpoint({
      operation: 'read',
      title: 'Read late',
      summary: 'Waits, then reads its file.',
      input: LateInput,
      output: Type.Object({ bytes: Type.Integer({ description: 'Bytes read.' }) }),
      cost: flat(10),
      async run(input, ctx) {
        const turn = onRun!(input.mode);
        turn.reached();
        await turn.go;
        try {
          const loaded = await loadInput(ctx.engines, 'base64', input.file, 'file', 10_000_000, ctx.signal);
          const bytes = input.mode === 'bytes'
            ? (await inputBytes(loaded)).byteLength
            : await withScratch('late', async (dir) => {
              await writeInputFile(loaded, join(dir, 'in'));
              return loaded.data.byteLength;
            });
          startedAfterRead += 1;
          return { bytes };
        } finally {
          ended += 1;
        }
      },
    }),
  ],
});

/** The body folders this process's server makes, as they appear. */
function watchBodyFolders(): { seen: Set<string>; close(): void } {
  const found = new Set<string>();
  const prefix = bodyScratchPrefix();
  const w: FSWatcher = watch(tmpdir(), (_event, name) => {
    if (name?.startsWith(prefix)) found.add(join(tmpdir(), name));
  });
  return { seen: found, close: () => w.close() };
}

async function until(check: () => boolean, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return check();
}

describe('a hang-up before the handler read a large body\'s file', () => {
  let server: RunningServer;
  let dataDir: string;
  let key: string;
  const lines: { level: number; msg?: string; err?: unknown }[] = [];
  let folders: ReturnType<typeof watchBodyFolders>;
  const call = (method: string, path: string, body?: unknown, token = key) => request(server.url + path, method, { token, body });
  const credits = async () => (await call('GET', '/api/v2/balance')).json.data.credits as number;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cia-test-'));
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const t = testServiceConfig();
    server = await startService(
      { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: 'hangup-admin', LOG_LEVEL: 'debug', DOCUMENTS_PREWARM: 'false', EMBEDDED_DB_TEMPLATE, JSON_OFF_THREAD_BYTES: '65536' },
      { serviceConfig: { ...t, plugins: { ...t.plugins, test_late: async () => ({ default: late }) } }, logger },
    );
    const made = await request(`${server.url}/admin/keys`, 'POST', { token: 'hangup-admin', body: { name: 'hangup', credits: 1000 } });
    key = made.json.key;
    folders = watchBodyFolders();
  });
  after(async () => {
    folders?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Sends `body` to `path`, hangs up once the handler runs, lets it read once the body folder is gone. */
  async function hangUp(path: string, body: unknown): Promise<void> {
    let reached!: () => void;
    const running = new Promise<void>((r) => (reached = r));
    let go!: () => void;
    const released = new Promise<void>((r) => (go = r));
    onRun = () => ({ reached, go: released });
    const before = new Set(folders.seen);
    const text = JSON.stringify(body);
    const { hostname, port } = new URL(server.url);
    const socket = net.connect(Number(port), hostname);
    socket.on('error', () => undefined);
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
    await running;
    const made = [...folders.seen].filter((d) => !before.has(d));
    assert.equal(made.length, 1, 'the body had its folder');
    socket.destroy();
    assert.ok(await until(() => !existsSync(made[0]!)), 'the folder is gone once the caller hung up');
    go();
  }

  for (const mode of ['copy', 'bytes'] as const) {
    for (const lane of ['v2', 'mcp'] as const) {
      it(`${lane}, a handler that ${mode === 'copy' ? 'copies the file for its tool' : 'reads its bytes'}: nothing logged above debug, free, nothing started`, async () => {
        const file = Buffer.alloc(100_000, 1).toString('base64');
        const input = { inputMethod: 'base64', file, mode };
        const start = await credits();
        const from = lines.length;
        const ran = startedAfterRead;
        const runs = ended;
        const body = lane === 'v2'
          ? { type: 'endpoint', id: 'test_late.read', input }
          : { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_late__read', arguments: input } };
        await hangUp(lane === 'v2' ? '/api/v2/run' : '/mcp', body);
        assert.ok(await until(() => ended === runs + 1), 'the handler ended');
        // Whatever the lane logs once the call has failed comes within the same turns; a margin for the usage row.
        await new Promise((r) => setTimeout(r, 300));
        const loud = lines.slice(from).filter((l) => l.level >= 40);
        assert.deepEqual(loud, [], 'nothing logged as a warning or an error');
        assert.equal(startedAfterRead, ran, 'nothing ran after the read');
        assert.equal(await credits(), start);
      });
    }
  }
});
