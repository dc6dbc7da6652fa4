/**
 * Collects one output stream as lines with a line cap and a byte cap (issue 6: "output caps,
 * truncation is reported"). Bytes past the cap are counted and dropped, so a flood costs memory
 * only up to the cap. Also the caps of a whole result ({@link capResult}): whatever a sandbox
 * hands back is cut again here, on the host, so code that subverts the caps inside its sandbox
 * (the JavaScript isolate's own `emit`, say) still cannot ship more than the caps to a client.
 */
import type { ExecutionErrorInfo, SandboxResult } from './types.js';

/** Largest `name`, `value` or `traceback` of an error object, in UTF-8 bytes, note included. */
export const ERROR_FIELD_MAX_BYTES = 65536;
/** Ends a cut error field (the Python runner writes the same text). */
export const FIELD_TRUNCATED_NOTE = ` [truncated: the field is limited to ${ERROR_FIELD_MAX_BYTES} bytes]`;

const STREAM_NOTE = /^\[output truncated: the stream is limited to \d+ lines and \d+ bytes\]$/;

/** Line-splitting, capped collector of one stream (stdout or stderr). */
export class StreamCollector {
  private readonly lines: string[] = [];
  private partial = '';
  private bytes = 0;
  private dropped = 0;
  private readonly decoder = new TextDecoder('utf-8');

  constructor(
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {}

  /** True once anything had to be dropped. */
  get truncated(): boolean {
    return this.dropped > 0;
  }

  /** Bytes offered after the cap was reached. */
  get droppedBytes(): number {
    return this.dropped;
  }

  /** Adds raw bytes from a pipe. */
  push(chunk: Uint8Array): void {
    if (this.full()) {
      this.dropped += chunk.length;
      return;
    }
    this.addText(this.decoder.decode(chunk, { stream: true }), chunk.length);
  }

  /** Adds a whole line (the JS sandbox hands over lines, not bytes). */
  pushLine(line: string): void {
    this.addText(line + '\n', Buffer.byteLength(line) + 1);
  }

  /** Records output the sandbox itself already dropped, so the stream still ends with the note. */
  droppedElsewhere(bytes: number): void {
    if (bytes > 0) this.dropped += bytes;
  }

  private full(): boolean {
    return this.lines.length >= this.maxLines || this.bytes >= this.maxBytes;
  }

  private addText(text: string, size: number): void {
    if (this.full()) {
      this.dropped += size;
      return;
    }
    let rest = this.partial + text;
    let nl: number;
    while ((nl = rest.indexOf('\n')) !== -1) {
      this.addLine(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
      if (this.full()) {
        this.dropped += Buffer.byteLength(rest);
        this.partial = '';
        return;
      }
    }
    this.partial = rest;
    // A single endless line must not grow past the byte cap either.
    if (Buffer.byteLength(this.partial) > this.maxBytes - this.bytes) {
      this.addLine(this.partial);
      this.partial = '';
    }
  }

  private addLine(line: string): void {
    const room = this.maxBytes - this.bytes;
    const size = Buffer.byteLength(line) + 1;
    if (size > room) {
      const cut = Buffer.from(line).subarray(0, Math.max(0, room - 1)).toString('utf8').replace(/\uFFFD$/, '');
      this.lines.push(cut);
      this.bytes = this.maxBytes;
      this.dropped += size - Buffer.byteLength(cut) - 1;
      return;
    }
    this.lines.push(line);
    this.bytes += size;
  }

  /** The collected lines; a final partial line is kept, and a note ends a truncated stream. */
  finish(): string[] {
    const tail = this.partial + this.decoder.decode();
    this.partial = '';
    if (tail !== '') {
      if (this.full()) this.dropped += Buffer.byteLength(tail);
      else this.addLine(tail);
    }
    if (this.dropped > 0) {
      this.lines.push(`[output truncated: the stream is limited to ${this.maxLines} lines and ${this.maxBytes} bytes]`);
    }
    return this.lines;
  }
}

/** Cuts `text` to at most `max` UTF-8 bytes, the note included; a text cut before keeps one note. */
export function capField(text: string, max = ERROR_FIELD_MAX_BYTES): string {
  if (text.length <= max / 3 || Buffer.byteLength(text) <= max) return text;
  const body = text.endsWith(FIELD_TRUNCATED_NOTE) ? text.slice(0, -FIELD_TRUNCATED_NOTE.length) : text;
  const room = max - Buffer.byteLength(FIELD_TRUNCATED_NOTE);
  // Cut on a character boundary: at most `room` bytes of the start, no half character at the end.
  const cut = Buffer.from(body.slice(0, room)).subarray(0, room).toString('utf8').replace(/\uFFFD$/, '');
  return cut + FIELD_TRUNCATED_NOTE;
}

/** The error object with each field a capped string, whatever shape came in. */
export function capError(e: unknown): ExecutionErrorInfo {
  const o = (e && typeof e === 'object' ? e : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
  return { name: capField(str(o.name) || 'Error'), value: capField(str(o.value)), traceback: capField(str(o.traceback)) };
}

/**
 * A result with both streams re-cut to the caps (a stream the sandbox already cut, by its own
 * count in `dropped`, keeps its note) and the error capped; anything not a string array counts as
 * no output.
 */
export function capResult(
  r: { stdout?: unknown; stderr?: unknown; error?: unknown; durationMs?: unknown },
  caps: { maxLines: number; maxBytes: number },
  dropped: [number, number] = [0, 0],
): SandboxResult {
  const streams = [r.stdout, r.stderr].map((lines, i) => {
    const c = new StreamCollector(caps.maxLines, caps.maxBytes);
    let cutBefore = dropped[i]!;
    if (Array.isArray(lines)) {
      // A stream cut before (by the worker) ends with the note: count it as dropped, not as a line.
      if (lines.length > 0 && typeof lines.at(-1) === 'string' && STREAM_NOTE.test(lines.at(-1) as string)) {
        lines = lines.slice(0, -1);
        cutBefore += 1;
      }
      for (const line of lines as unknown[]) {
        // Once the caps are reached the rest only counts as dropped: no need to walk it.
        if (c.truncated) break;
        c.pushLine(typeof line === 'string' ? line : String(line));
      }
    }
    c.droppedElsewhere(cutBefore);
    return { lines: c.finish(), truncated: c.truncated };
  });
  const out: SandboxResult = {
    stdout: streams[0]!.lines,
    stderr: streams[1]!.lines,
    truncated: streams[0]!.truncated || streams[1]!.truncated,
    durationMs: typeof r.durationMs === 'number' ? r.durationMs : 0,
  };
  if (r.error) out.error = capError(r.error);
  return out;
}

/** The error object of a run stopped at the wall-clock limit (issue 6: name `TimeoutError`). */
export function timeoutError(timeoutMs: number): ExecutionErrorInfo {
  const s = timeoutMs / 1000;
  return { name: 'TimeoutError', value: `Execution timed out after ${s} second${s === 1 ? '' : 's'}.`, traceback: '' };
}
