/**
 * The JSON body parser of every lane (issue 24). Small bodies are parsed where they arrive, by
 * Fastify's own parser. A body of at least JSON_OFF_THREAD_BYTES is handed to a compute worker
 * thread instead, as the chunks it arrived in (joining 27 MB on this thread cost as much as
 * parsing it used to): an attacker within the rate limit could send ten 27 MB base64 bodies a second,
 * and parsing plus base64 checking and decoding cost the serving thread about 150 ms each, so
 * `/healthz` and every other key waited. The worker parses, checks depth and decodes long base64
 * strings; the serving thread only receives the result (the decoded bytes moved, not copied). On
 * the routes that run a target (see takesPlaceholders) a decoded file field does not come back as a string at all (rebuilding a 27 MB
 * body's strings cost this thread more than the rest of the request), nor as bytes: the worker
 * writes it to a file in the request's body folder (body-scratch.ts) and the input holds a
 * DecodedBase64 naming that file in its place (core/plugin/predecoded.ts).
 * Parses wait in the compute pool's queue owner by owner, so one key's flood of big bodies delays
 * another key's body by at most one parse. Answers are those of the small path: the same invalid
 * JSON 400, the same depth 400 (from the depth hook), the same 413 (Fastify reads the body).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ComputeEngine, ComputeWork } from '../../core/engines/compute/types.js';
import { DecodedBase64, rememberDecoded, type Predecoded, type SentText } from '../../core/plugin/predecoded.js';
import { BusyError } from '../../core/errors.js';
// A full parse queue is the body budget's refusal in other words: the instance (or this key) has
// more bodies arriving than it handles at once, so the same documented 429 text.
import { bytesBusy } from '../../core/engines/http/byte-budget.js';
import { MAX_JSON_DEPTH, textNestedDeeperThan } from '../json-depth.js';
import type * as JsonWork from './json-work.js';
import { movableChunks, receiveChunks } from './receive-chunks.js';
import { bodyScratchDir, removeWhenDone, sweepBodyScratch } from './body-scratch.js';

/** Strings shorter than this are not worth decoding ahead (a file of under 48 KB decodes in microseconds). */
const MIN_DECODE_CHARS = 64 * 1024;

/** An Error Fastify's body-error mapping (body-errors.ts) turns into the invalid-JSON 400. */
function invalidJson(): Error {
  return Object.assign(new Error('Body is not valid JSON'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });
}

/**
 * What a body nested too deep is parsed as: a value one level deeper than allowed, which the
 * depth hook refuses with its usual answer (on every lane, after authentication). Built once
 * and frozen: it stands for every such body, and no route code runs on it.
 */
const TOO_DEEP: unknown = (() => {
  let v: unknown = Object.freeze({});
  for (let i = 0; i < MAX_JSON_DEPTH; i++) v = Object.freeze({ a: v });
  return v;
})();

/** Each request's response, for the parser to know when the request has ended (parsers see no reply). */
const responses = new WeakMap<object, ServerResponse>();

/**
 * Puts each decoded file field in the body in place of its string (a {@link DecodedBase64}), and
 * each other decoded string's bytes where `fromBase64` will find them, for as long as the request lasts.
 */
function register(req: FastifyRequest, parsed: Extract<JsonWork.ParsedBody, { kind: 'ok' }>): void {
  const items: { text: string; decoded: Predecoded }[] = [];
  parsed.decoded.forEach((d, i) => {
    const bytes = parsed.buffers[i]!;
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at: unknown = parsed.value;
    for (const step of d.path.slice(0, -1)) at = (at as Record<string | number, unknown>)?.[step];
    const key = d.path.at(-1)!;
    if (d.removed) {
      // The worker wrote the bytes to a file (the parser always asks it to for file fields).
      const r = d.removed;
      if (r.file === undefined || r.size === undefined || 'source' in r) throw new Error('a decoded file field came back without its file');
      // The string as sent: its bytes' file, or (plain base64, most files) a prefix and the bytes' own encoding.
      const sent: SentText = 'sourceFile' in r ? { file: r.sourceFile } : { prefix: r.prefix };
      (at as Record<string | number, unknown>)[key] = new DecodedBase64({ path: r.file, size: r.size, head: data }, d.contentType, d.textLength, r.length, sent);
      return;
    }
    const text = (at as Record<string | number, unknown>)?.[key];
    if (typeof text === 'string') items.push({ text, decoded: { data, contentType: d.contentType, textLength: d.textLength } });
  });
  const res = responses.get(req.raw);
  if (items.length === 0 || !res || res.closed) return;
  // Held until the answer is sent or the client has gone (the request's own 'close' comes as soon
  // as its body has been read, before the route has used it).
  res.once('close', rememberDecoded(items));
}

/** The files a parse wrote to the request's body folder (body-scratch.ts removes them). */
function writtenFiles(parsed: JsonWork.ParsedBody): string[] {
  if (parsed.kind !== 'ok') return [];
  return parsed.decoded.flatMap((d) => [d.removed?.file, d.removed && 'sourceFile' in d.removed ? d.removed.sourceFile : undefined].filter((f): f is string => f !== undefined));
}

/**
 * Routes whose body reaches a target's input only through the executor's schema check, which
 * knows {@link DecodedBase64}: the direct lane's, `/api/v2/run` (the input under `input`) and
 * MCP (a `tools/call`'s `arguments`, or the discovery `run` tool's `input`), so a flood of large
 * bodies costs the serving thread the same on every lane. Other routes (a job's submission,
 * which stores its input as sent) get their strings back.
 */
function takesPlaceholders(req: FastifyRequest): boolean {
  const url = req.routeOptions.url ?? '';
  return url.startsWith('/api/v1/') || url === '/api/v2/run' || url === '/mcp' || url === '/mcp/';
}

/**
 * Replaces Fastify's JSON parser on the root app (before the lanes are registered, so every
 * scope inherits it). `minBytes`: bodies at least this large go to a worker thread.
 */
export function installJsonBodyParser(app: FastifyInstance, compute: () => ComputeEngine, minBytes: number): void {
  const small = app.getDefaultJsonParser('error', 'error');
  let work: ComputeWork<typeof JsonWork> | undefined;
  // Folders of bodies an instance that died could not remove (this one's are removed as it goes).
  sweepBodyScratch();
  app.addHook('onRequest', (req, reply, next) => {
    responses.set(req.raw, reply.raw);
    next();
  });
  app.removeContentTypeParser('application/json');
  // No `parseAs`: the body's chunks come here unjoined (receive-chunks.ts), so a large one moves
  // to the worker as it arrived and is joined there, not on this thread.
  app.addContentTypeParser('application/json', (req, payload, done) => {
    const limit = req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 1024 * 1024;
    receiveChunks(req, payload, limit).then(({ chunks, length }) => {
      if (length < minBytes || length === 0) {
        const bytes = Buffer.concat(chunks, length);
        // Refused before parsing: a deep body's parse builds one container per level, for nothing.
        if (textNestedDeeperThan(bytes)) return done(null, TOO_DEEP);
        return small(req, bytes.toString('utf8'), done);
      }
      work ??= compute().register<typeof JsonWork>(new URL('./json-work.js', import.meta.url));
      const { parts, transfer } = movableChunks(chunks);
      const placeholders = takesPlaceholders(req);
      // File fields are written to this folder, removed when the response has closed (body-scratch.ts).
      const spill = placeholders ? bodyScratchDir() : undefined;
      const parsing = work.run('parseJsonBody', { chunks: parts, minDecode: MIN_DECODE_CHARS, placeholders, spill }, { owner: req.call?.key?.id, transfer, transferResult: true });
      if (spill) removeWhenDone(spill, responses.get(req.raw), parsing.then(writtenFiles, () => undefined));
      parsing
        .then((parsed) => {
          if (parsed.kind === 'invalid') return done(invalidJson(), undefined);
          if (parsed.kind === 'deep') return done(null, TOO_DEEP);
          try {
            register(req, parsed);
          } catch (err) {
            return done(err as Error, undefined);
          }
          done(null, parsed.value);
        }, (err: unknown) => {
          if (!(err instanceof BusyError)) return done(err as Error, undefined);
          responses.get(req.raw)?.setHeader('Retry-After', '1');
          done(bytesBusy(), undefined);
        });
    }, (err: Error) => done(err, undefined));
  });
}
