/** Small helpers for loopback fakes of a provider's HTTP contract. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Reads a request body; JSON bodies are parsed (invalid JSON → `undefined`). */
export async function readBody(req: IncomingMessage): Promise<{ raw: Buffer; json: any }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  let json: unknown;
  if (raw.length > 0) {
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      json = undefined;
    }
  }
  return { raw, json };
}

/** Answers `status` with a JSON body (and extra headers). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
