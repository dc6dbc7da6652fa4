/**
 * The local-tool engine (issue 24; design: "Work runs bounded"): every external tool a lane runs
 * — ffmpeg, ffprobe, tesseract, poppler's pdftoppm/pdftotext/pdfinfo, qpdf, and any tool added
 * later — goes through one {@link ToolRunner}, confined and limited (jail.ts, runner.ts,
 * settings.ts), and images are admitted by their header before any tool decodes them.
 * Plugins reach it through the SDK's `runTool` (or `ctx.engines.tools`); none imports
 * `child_process` (test/plugin-imports.test.ts).
 */
import type { EngineOptions } from '../options.js';
import { admitImage } from './image-header.js';
import { ToolRunner } from './runner.js';
import { loadToolSettings } from './settings.js';
import type { ToolEngine } from './types.js';

export { TOOL_SETTINGS_DOC } from './settings.js';

/** The engine plus what `runTool` and `withScratch` need of it. */
export interface ToolEngineImpl extends ToolEngine {
  readonly runner: ToolRunner;
  close(): Promise<void>;
}

/** Creates the engine from the environment (TOOLS_*, IMAGE_MAX_PIXELS, SANDBOX_UID_BASE). */
export function createToolEngine(opts: Pick<EngineOptions, 'env' | 'log'>): ToolEngineImpl {
  const settings = loadToolSettings(opts.env);
  const runner = new ToolRunner(settings, opts.env, opts.log);
  return {
    runner,
    imageMaxPixels: settings.imageMaxPixels,
    run: (cmd, args, o) => runner.run(cmd, args, o),
    admitImage: (bytes, label) => admitImage(bytes, label, settings.imageMaxPixels),
    close: () => runner.close(),
  };
}

let fallback: ToolEngineImpl | undefined;

/**
 * The engine `runTool` uses when its caller passes none: made on first use from the process
 * environment and kept for the life of the process (its uid block is taken over once the
 * process is gone). Lanes that have `ctx.engines.tools` pass it, so their server's settings apply.
 */
export function processToolEngine(): ToolEngineImpl {
  fallback ??= createToolEngine({ env: process.env, log: { warn: (o: object, m?: string) => console.warn(m, o) } as EngineOptions['log'] });
  return fallback;
}
