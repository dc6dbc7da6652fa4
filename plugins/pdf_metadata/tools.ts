/**
 * poppler and qpdf for the metadata jobs: one process per step through the SDK's `runTool`,
 * under the plugin's gate, with a time limit and the caller's signal. A user's PDF is only ever
 * parsed by these tools, never on the thread that serves HTTP.
 */
import { InputError, ServiceError, runTool, type Gate } from '../../core/sdk.js';

/** What a step needs to run a tool. */
export interface ToolDeps {
  gate: Gate;
  signal: AbortSignal;
  timeoutMs: number;
}

/** Runs a tool; a failure is the caller's file (400 naming `label`) unless the call was cancelled. */
export async function tool(deps: ToolDeps, cmd: string, args: string[], label: string): Promise<string> {
  try {
    return (await deps.gate.run(() => runTool(cmd, args, { signal: deps.signal, timeoutMs: deps.timeoutMs, maxBytes: 16 * 1024 * 1024 }), deps.signal)).stdout.toString('utf8');
  } catch (err) {
    if (deps.signal.aborted || err instanceof ServiceError) throw err;
    const stderr = String((err as { stderr?: string }).stderr ?? '');
    if (/password/i.test(stderr)) throw new InputError(`'${label}' is password-protected.`, { cause: err });
    throw new InputError(`'${label}' is not a readable PDF.`, { cause: err });
  }
}

/** Refuses what is not a PDF before a tool sees it (the header may follow up to 1 KB of junk). */
export function checkPdf(data: Buffer, label: string): void {
  if (!data.subarray(0, 1024).includes('%PDF-')) throw new InputError(`'${label}' is not a PDF.`);
}
