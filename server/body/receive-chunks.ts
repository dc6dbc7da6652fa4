/**
 * Reads a request body as the chunks it arrived in, without joining them (issue 24). Fastify's
 * own reader copies every body into one new buffer before its parser sees it; for a flood of
 * 27 MB bodies that copy cost the serving thread most of a core (each new 27 MB buffer is fresh
 * memory, paid for page by page). Keeping the chunks lets a large body move to a worker thread
 * as it arrived, and be joined there. Same checks and errors as Fastify's reader: the route's
 * body limit, a body shorter or longer than its Content-Length, a stream that fails.
 */
import { errorCodes, type FastifyRequest } from 'fastify';

/** A body as received: its chunks, in order, and their total length. */
export interface ReceivedBody {
  chunks: Buffer[];
  length: number;
}

/**
 * Collects `payload` (the request stream, or what a preParsing hook made of it) into chunks.
 * `limit`: the route's body limit. Resolves with the chunks, or rejects with Fastify's error.
 */
export function receiveChunks(req: FastifyRequest, payload: NodeJS.ReadableStream & { receivedEncodedLength?: number }, limit: number): Promise<ReceivedBody> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    function onData(chunk: Buffer | string) {
      // A preParsing stream may emit strings.
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      length += bytes.length;
      if (length > limit || (payload.receivedEncodedLength ?? 0) > limit) {
        stop();
        return reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      }
      chunks.push(bytes);
    }
    function onEnd(err?: Error & { statusCode?: number }) {
      stop();
      if (err != null) {
        // Fastify's reader answers a failed stream with 400 unless the error says otherwise.
        if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
        return reject(err);
      }
      if (!Number.isNaN(declared) && (payload.receivedEncodedLength || length) !== declared) return reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      resolve({ chunks, length });
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
}

/**
 * The chunks as byte arrays that can be moved to another thread: a chunk that owns its whole
 * memory is moved as it is (Node gives each HTTP body chunk its own copy); any other (a view
 * into shared memory) is copied first, so moving it cannot take memory from under its owner.
 */
export function movableChunks(chunks: Buffer[]): { parts: Uint8Array[]; transfer: ArrayBuffer[] } {
  const moved = new Set<ArrayBuffer>();
  const parts = chunks.map((c) => {
    const owns = c.byteOffset === 0 && c.byteLength === c.buffer.byteLength && c.buffer instanceof ArrayBuffer && !moved.has(c.buffer);
    if (!owns) return new Uint8Array(c);
    moved.add(c.buffer as ArrayBuffer);
    return new Uint8Array(c.buffer, 0, c.byteLength);
  });
  return { parts, transfer: parts.map((p) => p.buffer as ArrayBuffer) };
}
