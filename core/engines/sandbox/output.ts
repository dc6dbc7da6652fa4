/**
 * Collects one output stream as lines with a line cap and a byte cap (issue 6: "output caps,
 * truncation is reported"). Bytes past the cap are counted and dropped, so a flood costs memory
 * only up to the cap.
 */

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
