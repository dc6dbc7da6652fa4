/**
 * Catches the local tools a server under test runs, each while it is alive, so a test can read
 * what the kernel says of it (`/proc/<pid>/environ`, `status`, `ns/net`, `net/dev`) instead of
 * what the service meant to give it. Most tool runs last milliseconds (pdfinfo of a small PDF),
 * too short for a watcher polling `/proc` to see reliably, so a bubblewrap wrapper (pass `bin` as
 * `TOOLS_BWRAP_BIN`) runs the real `/usr/bin/bwrap` under strace, which holds each chosen tool
 * for `holdMs` just after its `execve` has returned: the process is the tool by then (its image,
 * environment, uids and namespaces), only its own code has not started. Which tools are held is
 * read from a file at each run, so one server serves every case; with none chosen the wrapper
 * runs bwrap directly. The folder and the file are open to every uid, since the wrapper runs as
 * the run's own uid.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { descendsFrom } from '../../core/engines/processes.js';

/** What `/proc` said of one tool process, read while it was held at its start. */
export interface ToolSighting {
  /** The binary's name (`/proc/<pid>/exe`). */
  tool: string;
  pid: number;
  argv: string[];
  /** `NAME=value` entries of its environment. */
  environ: string[];
  /** Real, effective, saved and file-system uids. */
  uids: number[];
  gids: number[];
  /** `/proc/<pid>/ns/net`, e.g. `net:[4026532185]`. */
  netns: string;
  /** Interfaces of its network namespace. */
  interfaces: string[];
}

export interface ToolCatcher {
  /** The wrapper to pass as `TOOLS_BWRAP_BIN`. */
  bin: string;
  /**
   * Runs `fn` while each start of the named tools (bare names, as in `/usr/bin`) is held and
   * `/proc` is watched for them under `ancestor`; returns what `fn` returned and every sighting.
   */
  during<T>(tools: string[], ancestor: number, fn: () => Promise<T>): Promise<{ result: T; seen: ToolSighting[] }>;
  remove(): void;
}

const STRACE = '/usr/bin/strace';

/** Whether strace is installed (the catcher needs it). */
export const canCatchTools = existsSync(STRACE);

/** A sighting of `pid` if it is one of `paths` (by its executable) and descends from `ancestor`. */
function sight(pid: number, paths: Set<string>, ancestor: number): ToolSighting | undefined {
  try {
    const exe = readlinkSync(`/proc/${pid}/exe`);
    if (!paths.has(exe) || !descendsFrom(pid, ancestor)) return undefined;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const ids = (field: string) => new RegExp(`^${field}:\\s+(.*)$`, 'm').exec(status)![1]!.trim().split(/\s+/).map(Number);
    return {
      tool: basename(exe),
      pid,
      argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean),
      environ: readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean),
      uids: ids('Uid'),
      gids: ids('Gid'),
      netns: readlinkSync(`/proc/${pid}/ns/net`),
      interfaces: readFileSync(`/proc/${pid}/net/dev`, 'utf8').split('\n').slice(2).map((l) => l.split(':')[0]!.trim()).filter(Boolean),
    };
  } catch {
    // Gone, or not readable yet (mid-exec): the next poll looks again.
    return undefined;
  }
}

/** Writes the wrapper in a new temporary folder named after `prefix`; each held start waits `holdMs`. */
export function toolCatcher(prefix: string, holdMs: number): ToolCatcher {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  const held = join(dir, 'held');
  writeFileSync(held, '', { mode: 0o644 });
  chmodSync(held, 0o644);
  const bin = join(dir, 'bwrap');
  // --seccomp-bpf: strace stops the run only at execve, so everything else runs at full speed.
  writeFileSync(
    bin,
    `#!/bin/sh
paths=$(cat ${held})
[ -z "$paths" ] && exec /usr/bin/bwrap "$@"
only=""
for p in $paths; do only="$only -P $p"; done
exec ${STRACE} -f --seccomp-bpf -qq -o /dev/null $only -e trace=execve -e inject=execve:delay_exit=${holdMs * 1000} -- /usr/bin/bwrap "$@"
`,
    { mode: 0o755 },
  );
  return {
    bin,
    async during(tools, ancestor, fn) {
      const paths = new Set(tools.map((t) => realpathSync(`/usr/bin/${t}`)));
      writeFileSync(held, [...paths].join('\n'));
      const seen = new Map<number, ToolSighting>();
      const poll = () => {
        for (const entry of readdirSync('/proc')) {
          const pid = Number(entry);
          if (!Number.isInteger(pid) || seen.has(pid)) continue;
          const s = sight(pid, paths, ancestor);
          if (s) seen.set(pid, s);
        }
      };
      // Every 100 ms: a held start (`holdMs`, a second or more) is seen several times over, even
      // when this thread answers late on a loaded machine.
      const timer = setInterval(poll, 100);
      try {
        const result = await fn();
        poll();
        return { result, seen: [...seen.values()] };
      } finally {
        clearInterval(timer);
        writeFileSync(held, '');
      }
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
