/** Runs the PDF command-line tools (ghostscript, qpdf, pdffonts) on scratch files. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Exit status and output of one tool run. */
export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cmd args…`, never throwing for a non-zero exit (the caller reads `code`). */
export function runTool(cmd: string, args: string[], timeoutMs = 120_000): Promise<ToolResult> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || (err && code === -1 ? err.message : '')) });
    });
  });
}

/** Gives `fn` a fresh scratch directory and removes it afterwards. */
export async function withScratch<T>(root: string | undefined, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(root ?? tmpdir(), 'pdf-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
