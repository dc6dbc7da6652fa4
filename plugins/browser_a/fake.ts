/**
 * A loopback fake of the browser_a API (Browserless REST, contracts §7b) for tests: `?token=`
 * auth, `POST /screenshot` answering a real PNG of the requested viewport, `POST /scrape`
 * answering `{ data: [{ selector, results }] }`, and the plain-text errors (401, 400, 408, 429).
 */
import { serveLoopback } from '../../core/sdk.js';
import zlib from 'node:zlib';

/** A running fake. */
export interface BrowserAFake {
  url: string;
  apiKey: string;
  /** What the server needs to use the fake (base URL and key variables). */
  env: Record<string, string>;
  requests: { path: string; query: Record<string, string>; body: any }[];
  /** When set, every call answers with this status and Browserless's text for it. */
  failWith: 408 | 429 | 500 | undefined;
  close(): Promise<void>;
}

function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0xee)]);
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const TEXT: Record<number, string> = { 400: "Couldn't parse JSON body", 401: 'Bad or missing authentication.', 408: 'Request has timed out', 429: 'Too many requests', 500: 'Error loading the browser' };

/** Starts the fake on 127.0.0.1 with a random port. */
export async function startBrowserAFake(opts: { apiKey?: string } = {}): Promise<BrowserAFake> {
  const apiKey = opts.apiKey ?? 'bl-test-token';
  const fake: BrowserAFake = { url: '', apiKey, env: {}, requests: [], failWith: undefined, close: async () => undefined };
  const server = await serveLoopback((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const u = new URL(req.url!, 'http://fake');
      const text = (status: number, body = TEXT[status] ?? 'Error') => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(body);
      };
      let body: any;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        return text(400);
      }
      const path = u.pathname.replace(/^\/chromium/, '');
      fake.requests.push({ path, query: Object.fromEntries(u.searchParams), body });
      if (u.searchParams.get('token') !== apiKey) return text(401);
      if (fake.failWith) return text(fake.failWith);
      if (req.method !== 'POST') return text(404, 'Not Found');
      if (typeof body.url !== 'string' || !/^https?:\/\//.test(body.url)) return text(400, 'Either "url" or "html" is required');
      if (path === '/screenshot') {
        if (body.options?.path) return text(400, '"path" is not allowed');
        // Puppeteer's options.clip makes the image the clipped rectangle.
        const clip = body.options?.clip;
        const w = clip?.width ?? body.viewport?.width ?? 800;
        const h = clip?.height ?? (body.viewport?.height ?? 600) * (body.options?.fullPage ? 2 : 1);
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(png(w, h));
      }
      if (path === '/scrape') {
        if (!Array.isArray(body.elements) || body.elements.length === 0) return text(400, '"elements" is required');
        const data = body.elements.map((e: { selector: string }) => ({
          selector: e.selector,
          results: [{ html: `<h1>Fake ${body.url}</h1>`, text: `Fake ${body.url}`, width: 800, height: 40, top: 0, left: 0, attributes: [{ name: 'class', value: 'x' }] }],
        }));
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ data, debug: null }));
      }
      text(404, 'Not Found');
    });
  });
  fake.url = server.url;
  fake.env = { BROWSER_A_BASE_URL: fake.url, BROWSER_A_API_KEY: apiKey };
  fake.close = () => server.close();
  return fake;
}

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startBrowserAFake;
