/** Local-tool engine contract (issue 24): confined runs of ffmpeg, tesseract, poppler, qpdf… */

/** A finished process run. */
export interface ToolResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/**
 * How a run failed: `exit` the tool refused its input (non-zero exit: usually the caller's file);
 * `memory`, `killed`, `timeout`, `output` and `start` are the service's limits or faults (a 5xx,
 * never the caller's input); `cancelled` the caller went away or its deadline passed.
 */
export type ToolFailure = 'exit' | 'memory' | 'killed' | 'timeout' | 'output' | 'start' | 'cancelled';

/** Thrown when a tool exits non-zero, is killed, times out or cannot start; `stderr` is for the log only. */
export class ToolError extends Error {
  /** The exit status of a tool that refused its input (`kind` `exit`). */
  code?: number;
  /** What the tool wrote to stdout before it failed (some report their verdict there, e.g. `qpdf --check`). */
  stdout?: Buffer;

  constructor(
    message: string,
    public stderr = '',
    readonly kind: ToolFailure = 'exit',
  ) {
    super(message);
  }

  /** True when the run was stopped by a limit or fault of the service, not by the tool's verdict on its input. */
  get serviceFault(): boolean {
    return this.kind !== 'exit' && this.kind !== 'cancelled';
  }
}

/** Options of one run. */
export interface ToolRunOptions {
  signal?: AbortSignal;
  /** Wall time of the run (capped by TOOLS_MAX_TIMEOUT_MS). */
  timeoutMs: number;
  /** Largest stdout kept; past it the run is killed. */
  maxBytes?: number;
  /** Stderr kept (for the log and for tools that report on stderr). */
  maxStderr?: number;
  /**
   * Folders the tool may read and write, bound at their host paths; scratch folders of
   * `withScratch` named in the arguments are added by `runTool` itself. Nothing else of the host is visible.
   */
  dirs?: string[];
  /** Files or folders the tool may only read (e.g. a profile outside `/usr`), bound at their host paths. */
  readOnly?: string[];
  /** Bytes written to the tool's stdin. */
  stdin?: Uint8Array;
  /** A lower memory limit than TOOLS_MEMORY_MB for this run. */
  memoryBytes?: number;
  /** The API key the run is for (`ctx.caller`): the instance's tool slots are handed out key by key. */
  owner?: string;
}

/** Width and height read from an image's header, and its format. */
export interface ImageHeader {
  format: 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp' | 'tiff';
  width: number;
  height: number;
}

/** The confined local tools (ctx.engines.tools). */
export interface ToolEngine {
  /** Runs `cmd args` confined (see ToolRunOptions). */
  run(cmd: string, args: string[], opts: ToolRunOptions): Promise<ToolResult>;
  /**
   * Reads an image's header and admits it: a format other than PNG, JPEG, GIF, WebP, BMP or
   * TIFF, or one over IMAGE_MAX_PIXELS, is a 400 naming `label`, before any tool decodes it.
   */
  admitImage(bytes: Uint8Array, label: string): ImageHeader;
  /** IMAGE_MAX_PIXELS. */
  readonly imageMaxPixels: number;
}
