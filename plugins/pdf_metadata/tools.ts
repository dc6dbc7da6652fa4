/**
 * poppler and qpdf for the metadata jobs: one process per step through the SDK's `runGatedTool`,
 * under the plugin's gate, with a time limit and the caller's signal. A user's PDF is only ever
 * parsed by these tools, never on the thread that serves HTTP.
 */
import { InputError, OperationFailedError, ServiceError, ToolError, runGatedTool, type Gate, type ToolEngine } from '../../core/sdk.js';

/** What a step needs to run a tool. */
export interface ToolDeps {
  gate: Gate;
  signal: AbortSignal;
  timeoutMs: number;
  /** The run context's tool engine (`ctx.engines.tools`): the server's limits apply. */
  tools: ToolEngine;
  /** The caller's key id: the gate serves callers in turn. */
  caller?: string;
}

/** Runs a tool; a failure is the caller's file (400 naming `label`) unless the call was cancelled or the service stopped the tool. */
export async function tool(deps: ToolDeps, cmd: string, args: string[], label: string): Promise<string> {
  try {
    return (await runGatedTool(deps, cmd, args, { maxBytes: 16 * 1024 * 1024 })).stdout.toString('utf8');
  } catch (err) {
    if (deps.signal.aborted || err instanceof ServiceError) throw err;
    // A tool killed by its limits is the service's failure, not a verdict on the file.
    if (err instanceof ToolError && err.serviceFault) throw new OperationFailedError(`Failed to process '${label}': the processing was stopped by the service (memory or time limit).`, { cause: err });
    const stderr = String((err as { stderr?: string }).stderr ?? '');
    if (/password/i.test(stderr)) throw new InputError(`'${label}' is password-protected.`, { cause: err });
    throw new InputError(`'${label}' is not a readable PDF.`, { cause: err });
  }
}

/** Refuses what is not a PDF before a tool sees it (the header may follow up to 1 KB of junk). */
export function checkPdf(data: Buffer, label: string): void {
  if (!data.subarray(0, 1024).includes('%PDF-')) throw new InputError(`'${label}' is not a PDF.`);
}
