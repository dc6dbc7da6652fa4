/**
 * Runs the PDF command-line tools (ghostscript, qpdf, pdffonts) on scratch files, confined like
 * every local tool (issue 24: core/engines/tools; no network, no secrets, only the scratch folder).
 * On the serving thread a run goes to the caller's tool engine (`tools`: the instance's, so its
 * TOOLS_* settings, slots and turns apply); in a PDF thread it is relayed to the serving thread,
 * which runs it that way for the thread's job (tool-relay.ts).
 */
import { ToolError, runTool as runConfined, withScratch as scratch } from '../../plugin/local-tools.js';
import type { PdfRunOptions } from './types.js';

/** Exit status and output of one tool run. */
export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One run's options besides the call's (`signal`, `owner`, `tools`). */
export interface PdfToolOptions extends PdfRunOptions {
  /** Wall time of the run (default 120 s; the instance's TOOLS_MAX_TIMEOUT_MS caps it). */
  timeoutMs?: number;
  /** Files outside the scratch folders the tool may read. */
  readOnly?: string[];
  /** Scratch folders the tool may use (needed when the run is relayed: the serving thread does not know a thread's folders). */
  dirs?: string[];
  /** A lower memory limit than TOOLS_MEMORY_MB for this run. */
  memoryBytes?: number;
}

/** Set in a PDF thread: where its tool runs go instead (thread.ts). */
let relay: ((cmd: string, args: string[], opts: Omit<PdfToolOptions, 'signal' | 'owner' | 'tools'>) => Promise<ToolResult>) | undefined;

/** Makes every run of this thread go to `to` (the PDF thread's relay to the serving thread). */
export function relayToolRuns(to: typeof relay): void {
  relay = to;
}

/**
 * Runs `cmd args…`, never throwing for a non-zero exit (the caller reads `code`; -1 when the tool
 * was killed or could not start). `signal`: a hang-up kills the tool; it then throws the abort
 * reason. `owner`: the caller's key (the instance's tool slots serve keys in turn). A full tool
 * engine (429) throws.
 */
export async function runTool(cmd: string, args: string[], opts: PdfToolOptions = {}): Promise<ToolResult> {
  const { signal, owner, tools, timeoutMs = 120_000, ...rest } = opts;
  if (relay) return relay(cmd, args, { timeoutMs, ...rest });
  try {
    const r = await runConfined(cmd, args, { ...rest, timeoutMs, maxBytes: 16 * 1024 * 1024, maxStderr: 64 * 1024, signal, owner, tools });
    return { code: 0, stdout: r.stdout.toString(), stderr: r.stderr };
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (!(err instanceof ToolError)) throw err;
    return { code: err.code ?? -1, stdout: err.stdout?.toString() ?? '', stderr: err.stderr || err.message };
  }
}

/** Gives `fn` a fresh scratch directory (tools named on it may use it) and removes it afterwards. */
export function withScratch<T>(root: string | undefined, fn: (dir: string) => Promise<T>): Promise<T> {
  return scratch('pdf', fn, root);
}
