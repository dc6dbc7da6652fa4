/**
 * The browser's CPU bound on both cgroup hierarchies, against fake trees in a temporary
 * directory (this machine has cgroup v1; the v2 layout is built by hand with the files the kernel
 * would show, as the sandboxes' cgroup.test.ts does). What is checked is what the kernel would act
 * on: the quota files written, and where; and that a missing hierarchy only warns, once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SandboxCgroups } from '../sandbox/confinement/cgroup.js';
import { BrowserCpuGroups, cpuQuotaUs } from './browser-cpu.js';
import { defaultBrowserCpuPercent } from './browser-jail.js';

async function fakeTree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'browser-cpu-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

test('cgroup v2: cpu.max is set in the browser\'s memory group, with cpu handed down to it', async () => {
  const root = await fakeTree({
    'mount/cgroup.controllers': 'cpuset cpu io memory pids',
    'mount/svc/cgroup.controllers': 'cpu memory pids',
    'mount/svc/cgroup.subtree_control': '',
    'mount/svc/cgroup.procs': String(process.pid),
    self: '0::/svc\n',
  });
  try {
    const paths = { mount: join(root, 'mount'), self: join(root, 'self') };
    const memory = new SandboxCgroups(true, undefined, undefined, paths).prepare(61_001, 512 << 20)!;
    const warnings: string[] = [];
    const cpu = new BrowserCpuGroups((r) => warnings.push(r), paths);
    assert.equal(cpu.prepare(61_001, 130, memory), undefined, 'nothing more to join on v2');
    assert.deepEqual(warnings, []);
    assert.equal(await readFile(join(memory, 'cpu.max'), 'utf8'), '130000 100000');
    for (const parent of [dirname(memory), join(root, 'mount/svc')]) assert.match(await readFile(join(parent, 'cgroup.subtree_control'), 'utf8'), /\+cpu/, parent);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('cgroup v2 without a memory group: no bound, one warning', async () => {
  const root = await fakeTree({ 'mount/cgroup.controllers': 'cpu memory', self: '0::/svc\n' });
  try {
    const warnings: string[] = [];
    const cpu = new BrowserCpuGroups((r) => warnings.push(r), { mount: join(root, 'mount'), self: join(root, 'self') });
    assert.equal(cpu.prepare(61_001, 130, undefined), undefined);
    assert.equal(cpu.prepare(61_002, 130, undefined), undefined);
    assert.equal(warnings.length, 1, warnings.join('; '));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('cgroup v1: a group per uid below the service\'s cpu group, with the CFS quota and period', async () => {
  const root = await fakeTree({
    'mount/cpu,cpuacct/cgroup.procs': '',
    'mount/cpu,cpuacct/svc/cgroup.procs': String(process.pid),
    self: '12:memory:/svc\n4:cpu,cpuacct:/svc\n',
  });
  try {
    const warnings: string[] = [];
    const cpu = new BrowserCpuGroups((r) => warnings.push(r), { mount: join(root, 'mount'), self: join(root, 'self') });
    const dir = cpu.prepare(61_001, 150, undefined)!;
    assert.ok(dir.startsWith(join(root, 'mount/cpu,cpuacct/svc/cia-browser-')), dir);
    assert.equal(await readFile(join(dir, 'cpu.cfs_quota_us'), 'utf8'), '150000');
    assert.equal(await readFile(join(dir, 'cpu.cfs_period_us'), 'utf8'), '100000');
    assert.deepEqual(warnings, []);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('no cpu hierarchy at all: no bound, one warning', async () => {
  const root = await fakeTree({ 'mount/memory/cgroup.procs': '', self: '12:memory:/svc\n' });
  try {
    const warnings: string[] = [];
    const cpu = new BrowserCpuGroups((r) => warnings.push(r), { mount: join(root, 'mount'), self: join(root, 'self') });
    assert.equal(cpu.prepare(61_001, 150, undefined), undefined);
    assert.equal(warnings.length, 1);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('the quota is the percent of one 100 ms period; the default leaves a quarter of the machine, at least one core', () => {
  assert.equal(cpuQuotaUs(150), 150_000);
  assert.equal(cpuQuotaUs(0.1), 1000, 'the kernel\'s minimum');
  assert.equal(defaultBrowserCpuPercent(2), 150);
  assert.equal(defaultBrowserCpuPercent(1), 100);
  assert.equal(defaultBrowserCpuPercent(16), 1200);
});
