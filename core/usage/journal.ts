/**
 * The usage journal (issue 18 finding 9): usage rows are written to the database in batches, so
 * a SIGKILL used to lose the rows of calls in flight and of calls answered in the last batch
 * interval. Each instance now appends, with unbuffered `write`s (the kernel keeps the bytes when
 * the process dies; only a machine crash can lose them), one per tick for all the lines of that
 * tick:
 * - `b`: a call passed authentication and starts (request id, key, lane, path, start time);
 * - `r`: the call's finished usage row;
 * - `d`: request ids whose rows the database has committed.
 * At the next start, journals whose process is gone are replayed: rows never committed are
 * inserted (finished rows as they were; calls cut off mid-way as status 500 `INTERRUPTED`, with
 * the credits the ledger shows they were charged, usually none), skipping any row the database
 * already holds, then the journal is deleted. A clean shutdown flushes and deletes its own.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../storage/db.js';
import type { UsageRow } from './usage-row.js';

/** A call that has started (the `b` record). */
export interface CallStart {
  requestId: string;
  keyId: string;
  lane: UsageRow['lane'];
  path: string;
  startedAt: number;
}

/** Status and code of a call found cut off by a crash. */
export const INTERRUPTED = { status: 500, code: 'INTERRUPTED' } as const;

/** Told of a journal write that failed, or of an answer that threw when the journal let it go. */
export type JournalErrorHandler = (err: unknown, during: 'write' | 'answer') => void;

/** Rotate once a journal passes this size: the new one starts with the calls still open. */
const ROTATE_BYTES = 8 * 1024 * 1024;

/** One instance's journal file. */
export class UsageJournal {
  /** Size past which the journal starts a new file (tests lower it). */
  static rotateBytes = ROTATE_BYTES;
  private fd = -1;
  private path = '';
  private bytes = 0;
  private closed = false;
  private readonly open = new Map<string, string>();
  /** Lines of this tick not yet written (see `begin` and `finish`). */
  private queued = '';
  private flushQueued = false;
  /** Answers waiting for their row's line to be in the file (see `finish`). */
  private afterWrite: (() => void)[] = [];

  private constructor(
    private readonly dir: string,
    private readonly floorId: number,
    private readonly onError: JournalErrorHandler,
  ) {
    this.create();
  }

  /**
   * Opens a new journal in `dir`; `floorId` is the usage log's largest id now (replay dedupes above
   * it). `onError` hears of a write that failed (a full disk: the rows still go to the database,
   * only their crash copy is missing) and of an answer that threw as it was let go.
   */
  static start(dir: string, floorId: number, onError: JournalErrorHandler = () => {}): UsageJournal {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return new UsageJournal(dir, floorId, onError);
  }

  /** Opens a fresh file (with its header) as the current one. */
  private create(): void {
    this.path = join(this.dir, `${hostname()}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.journal`);
    this.fd = openSync(this.path, 'a', 0o600);
    this.bytes = 0;
    this.append(JSON.stringify({ h: 1, floorId: this.floorId }) + '\n');
  }

  private append(text: string): void {
    if (this.closed || text.length === 0) return;
    this.bytes += writeSync(this.fd, text);
  }

  /**
   * A call starts. Its line waits for the end of the current tick, so the calls a burst of
   * replies (a pipelined Redis answer, one socket read) lets through together share one write;
   * `process.nextTick` runs before control returns to the event loop, so the line is in the file
   * before any reply the call waits for (its reservation, its charge) can be read.
   */
  begin(call: CallStart): void {
    const line = JSON.stringify({ b: call }) + '\n';
    this.open.set(call.requestId, line);
    this.queue(line);
  }

  /**
   * A call's row is final (not yet in the database). Its line joins this tick's write, and
   * `then` (sending the answer) runs once the line is in the file: a settlement batch finishes
   * ten calls in one tick, and their rows now cost one write instead of ten.
   */
  finish(row: UsageRow, then?: () => void): void {
    const line = JSON.stringify({ r: row }) + '\n';
    this.open.set(row.requestId, line);
    this.queue(line, then);
  }

  private queue(line: string, then?: () => void): void {
    this.queued += line;
    if (then) this.afterWrite.push(then);
    if (!this.flushQueued) {
      this.flushQueued = true;
      process.nextTick(() => this.writeQueued());
    }
  }

  /** Writes the tick's lines, then lets the answers waiting for them go. */
  private writeQueued(): void {
    const waiting = this.afterWrite;
    this.afterWrite = [];
    try {
      this.append(this.takeQueued());
    } catch (err) {
      this.onError(err, 'write');
    }
    for (const go of waiting) {
      try {
        go();
      } catch (err) {
        // One answer failing to go must not hold the others of this tick.
        this.onError(err, 'answer');
      }
    }
  }

  /** The lines waiting for their write, handed over once. */
  private takeQueued(): string {
    const q = this.queued;
    this.queued = '';
    this.flushQueued = false;
    return q;
  }

  /** These rows are committed. */
  done(requestIds: string[]): void {
    if (requestIds.length === 0) return;
    for (const id of requestIds) this.open.delete(id);
    // Lines still queued go first, so a row's `d` never precedes its `r` in the file.
    this.append(this.takeQueued() + JSON.stringify({ d: requestIds }) + '\n');
    if (this.bytes > UsageJournal.rotateBytes) this.rotate();
  }

  /** Starts a new file holding the calls still open, then drops the old one. */
  private rotate(): void {
    const old = { fd: this.fd, path: this.path };
    this.takeQueued(); // their lines are among the open calls the new file starts with
    this.create();
    this.append([...this.open.values()].join(''));
    closeSync(old.fd);
    unlinkSync(old.path);
  }

  /** Closes the journal; deletes it when nothing is left open (a clean stop). */
  close(): void {
    if (this.closed) return;
    this.writeQueued();
    this.closed = true;
    closeSync(this.fd);
    if (this.open.size === 0) unlinkSync(this.path);
  }
}

function ownerGone(file: string): boolean {
  const [host, pid] = file.split('.');
  if (host !== hostname()) return false; // another machine's instance on shared storage: not ours to judge
  const n = Number(pid);
  if (!Number.isInteger(n) || n === process.pid) return true; // our pid, an older file: a previous life (containers restart as pid 1)
  try {
    process.kill(n, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The rows a dead instance's journal holds that were never committed, oldest first. */
export function pendingRows(text: string): { floorId: number; rows: UsageRow[]; cut: CallStart[] } {
  let floorId = 0;
  const rows = new Map<string, UsageRow>();
  const starts = new Map<string, CallStart>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    let rec: { h?: number; floorId?: number; b?: CallStart; r?: UsageRow; d?: string[] };
    try {
      rec = JSON.parse(line);
    } catch {
      continue; // a line cut short by the kill
    }
    if (rec.h) floorId = rec.floorId ?? 0;
    else if (rec.b) starts.set(rec.b.requestId, rec.b);
    else if (rec.r) rows.set(rec.r.requestId, { ...rec.r, createdAt: new Date(rec.r.createdAt) });
    else if (rec.d) for (const id of rec.d) (rows.delete(id), starts.delete(id));
  }
  for (const id of rows.keys()) starts.delete(id);
  return { floorId, rows: [...rows.values()], cut: [...starts.values()] };
}

/**
 * Replays the journals of dead instances in `dir` into the usage log (through `insert`, the
 * log's own batch writer). Returns how many rows it wrote.
 */
export async function recoverJournals(dir: string, db: Db, insert: (rows: UsageRow[]) => Promise<void>): Promise<number> {
  if (!existsSync(dir)) return 0;
  let written = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.journal')).sort()) {
    const path = join(dir, file);
    if (!ownerGone(file) || !statSync(path).isFile()) continue;
    const { floorId, rows, cut } = pendingRows(readFileSync(path, 'utf8'));
    const ids = [...rows.map((r) => r.requestId), ...cut.map((c) => c.requestId)];
    if (ids.length > 0) {
      // A batch may have committed just before the kill, before its `d` record was written.
      const have = new Set((await db.query<{ request_id: string }>('SELECT request_id FROM usage_log WHERE id > $1 AND request_id = ANY($2::text[])', [floorId, ids])).map((r) => r.request_id));
      const charges = new Map(
        (await db.query<{ request_id: string; credits: string; target: string | null }>("SELECT request_id, -amount AS credits, target FROM ledger WHERE kind = 'charge' AND request_id = ANY($1::text[])", [cut.map((c) => c.requestId)])).map((r) => [r.request_id, r]),
      );
      const recovered: UsageRow[] = rows.filter((r) => !have.has(r.requestId));
      for (const c of cut) {
        if (have.has(c.requestId)) continue;
        const charge = charges.get(c.requestId);
        recovered.push({
          requestId: c.requestId,
          keyId: c.keyId,
          lane: c.lane,
          objectType: charge?.target ? (charge.target.includes('.') ? 'endpoint' : 'capability') : 'operation',
          objectId: charge?.target ?? c.path,
          provider: null,
          // Charged means the work was done and settled: the answer may well have gone out.
          status: charge ? 200 : INTERRUPTED.status,
          code: charge ? null : INTERRUPTED.code,
          credits: charge ? Number(charge.credits) : 0,
          latencyMs: 0,
          requestSource: 'API',
          createdAt: new Date(c.startedAt),
        });
      }
      if (recovered.length > 0) await insert(recovered);
      written += recovered.length;
    }
    unlinkSync(path);
  }
  return written;
}
