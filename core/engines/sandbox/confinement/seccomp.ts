/**
 * A seccomp filter for every bubblewrap sandbox (issue 6 audit, item 4), handed to `bwrap
 * --seccomp FD` as a compiled classic BPF program. Written by hand so no libseccomp binding is
 * needed: it refuses the kernel interfaces sandboxed code never needs and that carry most of the
 * kernel's attack surface (ptrace, keyrings, eBPF, userfaultfd, perf events, io_uring, module
 * loading, mounting, namespaces, clock setting). Everything else is allowed: the filter narrows
 * the kernel, the namespaces, uid and rlimits do the confinement.
 *
 * Only x86-64 has a table (the numbers below were checked against this machine's
 * `asm/unistd_64.h`); elsewhere {@link seccompProgram} returns undefined and the sandboxes run
 * without the filter (the engines log that once).
 */

/** Denied with EPERM, x86-64 numbers. */
const DENY_X64: Record<string, number> = {
  ptrace: 101, syslog: 103, uselib: 134, adjtimex: 159, acct: 163, settimeofday: 164, mount: 165, umount2: 166,
  swapon: 167, swapoff: 168, reboot: 169, init_module: 175, delete_module: 176, quotactl: 179, pivot_root: 155,
  vhangup: 153, lookup_dcookie: 212, clock_settime: 227, kexec_load: 246, add_key: 248, request_key: 249,
  keyctl: 250, unshare: 272, perf_event_open: 298, fanotify_init: 300, name_to_handle_at: 303,
  open_by_handle_at: 304, clock_adjtime: 305, setns: 308, process_vm_readv: 310, process_vm_writev: 311, kcmp: 312,
  finit_module: 313, kexec_file_load: 320, bpf: 321, userfaultfd: 323, open_tree: 428, move_mount: 429, fsopen: 430,
  fsconfig: 431, fsmount: 432, fspick: 433, pidfd_getfd: 438, mount_setattr: 442, quotactl_fd: 443,
};
/**
 * Refused in the code sandboxes only (`sessions: false`): a new session is a new scheduling group
 * at the service's priority under autogroup scheduling, so code could lift its own loops out of
 * CODE_NICE (../run-priority.ts). A sandbox already runs in a session of its own.
 */
const SETSID_X64 = 112;
/**
 * Answered ENOSYS so callers take their fallback: glibc retries thread and process creation with
 * `clone` (whose flags the filter can inspect, unlike clone3's struct), libuv drops io_uring.
 */
const NOSYS_X64 = { clone3: 435, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427 };
const CLONE_X64 = 56;
/** CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET: no new namespaces via clone. */
const CLONE_NEW_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

const AUDIT_ARCH_X86_64 = 0xc000003e;
/** x32 system calls carry this bit; they have their own numbers, so they are refused outright. */
const X32_SYSCALL_BIT = 0x40000000;

// Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;
const EPERM = 1;
const ENOSYS = 38;
// struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (little endian).
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0_LOW = 16;

type Label = 'allow' | 'eperm' | 'enosys' | 'kill';
interface Insn {
  code: number;
  k: number;
  /** Jump targets: a label, or 0 for the next instruction. */
  jt?: Label | 0;
  jf?: Label | 0;
}

/** Assembles the instructions, resolving labels to the relative offsets classic BPF uses. */
function assemble(body: Insn[]): Buffer {
  const tail: Record<Label, number> = { allow: RET_ALLOW, eperm: RET_ERRNO | EPERM, enosys: RET_ERRNO | ENOSYS, kill: RET_KILL_PROCESS };
  const labels = Object.keys(tail) as Label[];
  const at = (l: Label) => body.length + labels.indexOf(l);
  const all: Insn[] = [...body, ...labels.map((l) => ({ code: RET_K, k: tail[l] }))];
  const buf = Buffer.alloc(all.length * 8);
  all.forEach((insn, i) => {
    const rel = (t: Label | 0 | undefined) => {
      if (!t) return 0;
      const off = at(t) - i - 1;
      if (off < 0 || off > 255) throw new Error('seccomp program too long for a jump');
      return off;
    };
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(rel(insn.jt), i * 8 + 2);
    buf.writeUInt8(rel(insn.jf), i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}

const cached = new Map<boolean, Buffer | null>();

/**
 * The compiled filter for this machine's architecture, or undefined where there is no table.
 * `sessions: false` also refuses `setsid` (the code sandboxes; the local tools keep it).
 */
export function seccompProgram(opts: { sessions?: boolean } = {}): Buffer | undefined {
  const sessions = opts.sessions ?? true;
  if (!cached.has(sessions)) cached.set(sessions, build(process.arch, sessions));
  return cached.get(sessions) ?? undefined;
}

function build(arch: string, sessions: boolean): Buffer | null {
  if (arch !== 'x64') return null;
  const deny = sessions ? Object.values(DENY_X64) : [...Object.values(DENY_X64), SETSID_X64];
  const body: Insn[] = [
    { code: LD_W_ABS, k: OFF_ARCH },
    // Another ABI (i386 through int 0x80) has other numbers: a process that tries it is killed.
    { code: JEQ_K, k: AUDIT_ARCH_X86_64, jt: 0, jf: 'kill' },
    { code: LD_W_ABS, k: OFF_NR },
    { code: JGE_K, k: X32_SYSCALL_BIT, jt: 'eperm', jf: 0 },
    ...deny.map((nr): Insn => ({ code: JEQ_K, k: nr, jt: 'eperm', jf: 0 })),
    ...Object.values(NOSYS_X64).map((nr): Insn => ({ code: JEQ_K, k: nr, jt: 'enosys', jf: 0 })),
    { code: JEQ_K, k: CLONE_X64, jt: 0, jf: 'allow' },
    { code: LD_W_ABS, k: OFF_ARG0_LOW },
    { code: JSET_K, k: CLONE_NEW_NAMESPACES, jt: 'eperm', jf: 'allow' },
  ];
  return assemble(body);
}
