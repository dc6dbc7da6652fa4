/**
 * Settings of the local-tool engine (issue 24: every external tool confined, memory-capped,
 * time-limited), read from the environment at boot. Each limit applies to one tool run (one
 * ffmpeg, ffprobe, tesseract, pdftoppm, pdftotext, pdfinfo or qpdf process and whatever it starts).
 */
import { intSetting } from '../../util/int-setting.js';

/** The resolved settings. */
export interface ToolSettings {
  /** bubblewrap binary that confines every tool run. */
  bwrapBin: string;
  /** Memory of one tool run in bytes (cgroup where writable, else RLIMIT_AS of each process). */
  memoryBytes: number;
  /** CPU seconds of one tool run (RLIMIT_CPU), a backstop behind the wall clock. */
  cpuSeconds: number;
  /** Longest wall time of one tool run, whatever its caller asks. */
  maxTimeoutMs: number;
  /** Largest file one tool run may write (RLIMIT_FSIZE). */
  maxFileBytes: number;
  /** Processes and threads of one tool run. */
  maxProcesses: number;
  /** Tool runs at once on the instance (one uid each); more wait. */
  slots: number;
  /** First uid of the host-wide block the tool uids come from (shared default with the sandboxes). */
  uidBase: number;
  /** Largest image (width × height) any image entry point admits. */
  imageMaxPixels: number;
  /** Nice value of a key's only running tool run (0 to 19): how readily it yields a core to the serving thread. */
  nice: number;
  /** How much lower each further concurrent run of the same key is scheduled (priority.ts `fairNice`). */
  niceStep: number;
}

/** Documented variables: name → description and default (README "Engine settings"). */
export const TOOL_SETTINGS_DOC: Record<string, { description: string; default: string }> = {
  TOOLS_BWRAP_BIN: { description: 'bubblewrap that confines every local tool run (ffmpeg, ffprobe, tesseract, poppler, qpdf).', default: '/usr/bin/bwrap' },
  TOOLS_MEMORY_MB: { description: 'Memory of one tool run; past it the tool is killed and the call is a free 500.', default: '1024' },
  TOOLS_CPU_SECONDS: { description: 'CPU seconds of one tool run.', default: '600' },
  TOOLS_MAX_TIMEOUT_MS: { description: 'Longest wall time of one tool run, whatever a lane asks.', default: '900000' },
  TOOLS_MAX_FILE_MB: { description: 'Largest file one tool run may write.', default: '2048' },
  TOOLS_MAX_PROCESSES: { description: 'Processes and threads of one tool run.', default: '64' },
  TOOLS_SLOTS: { description: 'Tool runs at once on the instance, one uid each.', default: '16' },
  TOOLS_NICE: { description: 'How much lower than the service a tool run is scheduled when it is its key\'s only run going (Linux nice and its session group, 0 to 19): tools leave a core to the thread that answers every call, yet a lone call is not starved by the instance\'s own work.', default: '5' },
  TOOLS_NICE_STEP: { description: 'How much lower again each further concurrent tool run of the same key is scheduled (capped at 19): one key\'s flood sinks below another key\'s single run. Also applies to LibreOffice jobs (OFFICE_NICE). 0: every run at TOOLS_NICE.', default: '3' },
  IMAGE_MAX_PIXELS: { description: 'Largest image (width × height, read from its header) any image input admits; larger is a free 400.', default: '50000000' },
};

/** Reads the settings; throws with the variable's name on a bad value. */
export function loadToolSettings(env: Record<string, string | undefined>): ToolSettings {
  return {
    bwrapBin: env.TOOLS_BWRAP_BIN?.trim() || '/usr/bin/bwrap',
    memoryBytes: intSetting(env, 'TOOLS_MEMORY_MB', 1024, 16) * 1024 * 1024,
    cpuSeconds: intSetting(env, 'TOOLS_CPU_SECONDS', 600),
    maxTimeoutMs: intSetting(env, 'TOOLS_MAX_TIMEOUT_MS', 900_000, 1000),
    maxFileBytes: intSetting(env, 'TOOLS_MAX_FILE_MB', 2048) * 1024 * 1024,
    maxProcesses: intSetting(env, 'TOOLS_MAX_PROCESSES', 64, 4),
    slots: intSetting(env, 'TOOLS_SLOTS', 16),
    uidBase: intSetting(env, 'SANDBOX_UID_BASE', 61_000, 1000),
    imageMaxPixels: intSetting(env, 'IMAGE_MAX_PIXELS', 50_000_000, 1),
    nice: niceSetting(env, 'TOOLS_NICE', 5),
    niceStep: niceSetting(env, 'TOOLS_NICE_STEP', 3),
  };
}

/** A nice value from 0 (the service's own priority) to 19 (Linux's lowest); `fallback` when unset. */
export function niceSetting(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const n = intSetting(env, name, fallback, 0);
  if (n > 19) throw new Error(`${name} must be an integer from 0 to 19, got '${env[name]}'.`);
  return n;
}
