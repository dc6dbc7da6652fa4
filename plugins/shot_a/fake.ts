/**
 * A loopback fake of the shot_a API (ScreenshotOne, contracts §7a) for tests: `GET|POST /take`,
 * the key as `access_key` (query or body) or `X-Access-Key`, a real PNG of the requested viewport
 * back, and the documented JSON error bodies (most of them with HTTP 400).
 */
import { serveLoopback } from '../../core/sdk.js';
import zlib from 'node:zlib';

/** A running fake. */
export interface ShotAFake {
  url: string;
  apiKey: string;
  /** What the server needs to use the fake (base URL and key variables). */
  env: Record<string, string>;
  requests: Record<string, unknown>[];
  /** When set, `/take` answers with this error code. */
  failWith: 'concurrency_limit_reached' | 'host_returned_error' | 'name_not_resolved' | undefined;
  close(): Promise<void>;
}

/** A solid-colour PNG of `width`×`height` (so tests can read the size back from IHDR). */
export function solidPng(width: number, height: number): Buffer {
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
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x7f)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const STATUS: Record<string, number> = { access_key_required: 400, access_key_invalid: 400, concurrency_limit_reached: 400, name_not_resolved: 400, host_returned_error: 500, request_not_valid: 400 };

/** Starts the fake on 127.0.0.1 with a random port. */
export async function startShotAFake(opts: { apiKey?: string } = {}): Promise<ShotAFake> {
  const apiKey = opts.apiKey ?? 'shot-test-key';
  const fake: ShotAFake = { url: '', apiKey, env: {}, requests: [], failWith: undefined, close: async () => undefined };
  const server = await serveLoopback((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const u = new URL(req.url!, 'http://fake');
      const fail = (code: string, message: string) => {
        res.writeHead(STATUS[code] ?? 500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ is_successful: false, error_code: code, error_message: message, documentation_url: `https://screenshotone.com/docs/errors/${code}/` }));
      };
      if (u.pathname !== '/take') return fail('request_not_valid', 'Unknown route.');
      let o: Record<string, unknown> = Object.fromEntries(u.searchParams);
      if (req.method === 'POST') {
        try {
          o = { ...o, ...JSON.parse(raw || '{}') };
        } catch {
          return fail('request_not_valid', 'The body is not valid JSON.');
        }
      }
      fake.requests.push(o);
      const key = req.headers['x-access-key'] ?? o.access_key;
      if (!key) return fail('access_key_required', 'Access key is required.');
      if (key !== apiKey) return fail('access_key_invalid', 'Access key is invalid.');
      if (fake.failWith) return fail(fake.failWith, `Simulated ${fake.failWith}.`);
      if (typeof o.url !== 'string' || !/^https?:\/\//.test(o.url)) return fail('request_not_valid', 'One of url, html or markdown is required.');
      // With clip_* options the image is the clipped rectangle, as the real API answers.
      const clipped = o.clip_width !== undefined && o.clip_height !== undefined;
      const width = clipped ? Number(o.clip_width) : Number(o.viewport_width ?? 1280);
      const height = clipped ? Number(o.clip_height) : Number(o.viewport_height ?? 1024) * (String(o.full_page) === 'true' ? 3 : 1);
      const format = String(o.format ?? 'jpg');
      if (format !== 'png') return fail('request_not_valid', 'This fake renders png only.');
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(solidPng(width, height));
    });
  });
  fake.url = server.url;
  fake.env = { SHOT_A_BASE_URL: fake.url, SHOT_A_API_KEY: apiKey };
  fake.close = () => server.close();
  return fake;
}

/** The name every provider fake exports (the contract test looks for it). */
export const startFake = startShotAFake;
