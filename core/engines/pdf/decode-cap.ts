/**
 * A cap on the bytes pdf-lib decompresses for one job (issue 24, finding 2: one `/ObjStm` that
 * inflated to 1 GB). pdf-lib decodes object and cross-reference streams whole while it parses,
 * into buffers that grow by doubling; every growth goes through `DecodeStream.ensureBuffer`, so
 * counting there bounds the job's decoded bytes whatever the filters. The buffers live outside
 * the V8 heap, which a worker's `resourceLimits` does not bound: this cap does.
 *
 * pdf-lib swallows errors while it parses objects (an invalid object is skipped), so going over
 * the cap is also remembered: `exceeded()` tells the loader the document was cut short.
 */
import { createRequire } from 'node:module';

/** Thrown (and remembered) when a job decodes more than its cap. */
export class DecodeLimitError extends Error {
  constructor(readonly limitBytes: number) {
    super(`decoded streams exceed ${limitBytes} bytes`);
    this.name = 'DecodeLimitError';
  }
}

interface Budget {
  limit: number;
  used: number;
  exceeded: boolean;
}

/** The running job's budget; none outside a job (the main thread reads only its own PDFs). */
let budget: Budget | null = null;

let installed = false;

/** Patches pdf-lib's stream decoder once (the same module instance `import 'pdf-lib'` loads). */
function install(): void {
  if (installed) return;
  installed = true;
  const require = createRequire(import.meta.url);
  const DecodeStream = require('pdf-lib/cjs/core/streams/DecodeStream').default as { prototype: { ensureBuffer(requested: number): Uint8Array; buffer: Uint8Array } };
  const original = DecodeStream.prototype.ensureBuffer;
  DecodeStream.prototype.ensureBuffer = function (this: { buffer: Uint8Array }, requested: number) {
    const b = budget;
    if (b) {
      const before = this.buffer?.byteLength ?? 0;
      if (requested > before) {
        if (b.exceeded || b.used + (requested - before) > b.limit) {
          b.exceeded = true;
          throw new DecodeLimitError(b.limit);
        }
        const out = original.call(this, requested);
        b.used += out.byteLength - before;
        return out;
      }
    }
    return original.call(this, requested);
  };
}

/** Runs `fn` with at most `limitBytes` decoded by pdf-lib; jobs run one at a time per thread. */
export async function withDecodeCap<T>(limitBytes: number, fn: () => Promise<T>): Promise<T> {
  install();
  budget = { limit: limitBytes, used: 0, exceeded: false };
  try {
    return await fn();
  } finally {
    budget = null;
  }
}

/** True when the running job went over its cap (even if pdf-lib swallowed the error). */
export function decodeExceeded(): boolean {
  return budget?.exceeded ?? false;
}

/** Bytes the running job may still decode (undefined outside a job). */
export function decodeRemaining(): number | undefined {
  return budget ? Math.max(0, budget.limit - budget.used) : undefined;
}

/** The running job's cap in bytes (undefined outside a job). */
export function decodeLimit(): number | undefined {
  return budget?.limit;
}
