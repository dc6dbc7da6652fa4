/**
 * The sandbox cgroups on both hierarchies (issue 6 audit, item 5), against fake cgroup trees in a
 * temporary directory: this machine has cgroup v1, so the v2 layout (`cgroup.controllers` at the
 * mount, `0::/path` in /proc/self/cgroup) is built by hand with the files the kernel would show.
 * What is checked is what the kernel would act on: the limit files written and where.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxCgroups, cgroupUnavailableWarning } from './cgroup.js';

async function fakeTree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'code-cgroup-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

test('cgroup v2: the service group delegates memory and pids; a run group gets memory.max, memory.swap.max and pids.max', async () => {
  const root = await fakeTree({
    'mount/cgroup.controllers': 'cpuset cpu io memory hugetlb pids',
    'mount/svc/cgroup.controllers': 'cpu memory pids',
    'mount/svc/cgroup.subtree_control': '',
    'mount/svc/cgroup.procs': String(process.pid),
    'self': '0::/svc\n',
  });
  const reasons: string[] = [];
  try {
    const cg = new SandboxCgroups(true, undefined, (r) => reasons.push(r), { mount: join(root, 'mount'), self: join(root, 'self') });
    assert.deepEqual(reasons, []);
    assert.equal(cg.available, true);
    assert.equal(cg.cgroupVersion, 2);
    assert.equal(await readFile(join(root, 'mount/svc/cgroup.subtree_control'), 'utf8'), '+memory +pids');
    const dir = cg.prepare(61_000, 512 * 1024 * 1024, 'code', 64);
    assert.ok(dir?.startsWith(join(root, 'mount/svc/cia-sandbox-')), dir);
    const group = join(dir!, '..');
    assert.equal(await readFile(join(group, 'cgroup.subtree_control'), 'utf8'), '+memory +pids');
    assert.equal(await readFile(join(dir!, 'memory.max'), 'utf8'), String(512 * 1024 * 1024));
    assert.equal(await readFile(join(dir!, 'memory.swap.max'), 'utf8'), '0');
    assert.equal(await readFile(join(dir!, 'pids.max'), 'utf8'), '64');
    const commands = cg.prepare(61_000, 2048 * 1024 * 1024, 'commands', 256)!;
    assert.notEqual(commands, dir);
    assert.equal(await readFile(join(commands, 'pids.max'), 'utf8'), '256');
    // The OOM killer's count comes from memory.events on v2.
    await writeFile(join(dir!, 'memory.events'), 'low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n');
    assert.equal(cg.oomKills(dir), 2);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('cgroup v1: a run group gets memory.limit_in_bytes below the service memory group', async () => {
  const root = await fakeTree({
    'mount/memory/cgroup.procs': '',
    'mount/memory/svc/cgroup.procs': String(process.pid),
    'self': '5:pids:/\n4:memory:/svc\n0::/\n',
  });
  try {
    const cg = new SandboxCgroups(true, undefined, undefined, { mount: join(root, 'mount'), self: join(root, 'self') });
    assert.equal(cg.cgroupVersion, 1);
    const dir = cg.prepare(61_001, 256 * 1024 * 1024)!;
    assert.ok(dir.startsWith(join(root, 'mount/memory/svc/cia-sandbox-')), dir);
    assert.equal(await readFile(join(dir, 'memory.limit_in_bytes'), 'utf8'), String(256 * 1024 * 1024));
    assert.deepEqual((await readdir(dir)).sort(), ['memory.limit_in_bytes']);
    await writeFile(join(dir, 'memory.oom_control'), 'oom_kill_disable 0\nunder_oom 0\noom_kill 4\n');
    assert.equal(cg.oomKills(dir), 4);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('no writable cgroup: runs keep their rlimits and the engine logs one warning saying why', async () => {
  const noMemory = await fakeTree({
    'mount/cgroup.controllers': 'cpu io pids',
    'mount/svc/cgroup.controllers': 'cpu pids',
    'self': '0::/svc\n',
  });
  const nothing = await fakeTree({ 'mount/README': 'not a cgroup', 'self': '0::/\n' });
  try {
    for (const [root, why] of [
      [noMemory, /memory controller is not delegated/],
      [nothing, /no cgroup v2 and no cgroup v1/],
    ] as const) {
      const warnings: { obj: { reason?: string }; msg: string }[] = [];
      const log = { warn: (obj: object, msg: string) => warnings.push({ obj, msg }) };
      const cg = new SandboxCgroups(true, undefined, cgroupUnavailableWarning(log, 'Python runs'), { mount: join(root, 'mount'), self: join(root, 'self') });
      assert.equal(cg.available, false);
      assert.equal(cg.prepare(61_000, 1024), undefined);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!.msg, /no writable cgroup for Python runs: each process keeps its rlimits/);
      assert.match(warnings[0]!.obj.reason ?? '', why);
    }
  } finally {
    await rm(noMemory, { recursive: true, force: true });
    await rm(nothing, { recursive: true, force: true });
  }
});
