/**
 * Runs the PDF command-line tools (ghostscript, qpdf, pdffonts) on scratch files, confined like
 * every local tool (issue 24: core/engines/tools; no network, no secrets, only the scratch folder).
 */
import { ToolError, runTool as runConfined, withScratch as scratch } from '../../plugin/local-tools.js';
import type { PdfRunOptions } from './types.js';

/** Exit status and output of one tool run. */
export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `cmd args…`, never throwing for a non-zero exit (the caller reads `code`; -1 when the tool
 * was killed or could not start). `readOnly`: files outside the scratch folder it may read.
 * `run`: the call's signal (a hang-up kills the tool; it then throws the abort reason) and its key
 * (the instance's tool slots serve keys in turn).
 */
export async function runTool(cmd: string, args: string[], timeoutMs = 120_000, readOnly: string[] = [], run: PdfRunOptions = {}): Promise<ToolResult> {
  try {
    const r = await runConfined(cmd, args, { timeoutMs, maxBytes: 16 * 1024 * 1024, maxStderr: 64 * 1024, readOnly, signal: run.signal, owner: run.owner });
    return { code: 0, stdout: r.stdout.toString(), stderr: r.stderr };
  } catch (err) {
    if (run.signal?.aborted) throw run.signal.reason;
    if (!(err instanceof ToolError)) throw err;
    return { code: err.code ?? -1, stdout: err.stdout?.toString() ?? '', stderr: err.stderr || err.message };
  }
}

/** Gives `fn` a fresh scratch directory (tools named on it may use it) and removes it afterwards. */
export function withScratch<T>(root: string | undefined, fn: (dir: string) => Promise<T>): Promise<T> {
  return scratch('pdf', fn, root);
}
