/**
 * The start-up sweep of body folders (issue 24): folders of an instance that died are removed,
 * those of a live one kept, whatever pid namespace either ran in. Instances name their folders by
 * a random id and keep a lease file fresh; a pid says nothing across namespaces.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { LEASE_STALE_MS, bodyScratchDir, bodyScratchPrefix, sweepBodyScratch } from './body-scratch.js';

it('removes the folders of instances whose lease is missing or stale, keeps those of live instances and its own', () => {
  const root = mkdtempSync(join(tmpdir(), 'cia-sweep-test-'));
  try {
    const folder = (name: string) => {
      mkdirSync(join(root, name, 'x'), { recursive: true });
      return join(root, name);
    };
    const lease = (instance: string, ageMs: number) => {
      const file = join(root, `cia-body-${instance}.lease`);
      writeFileSync(file, '');
      const t = new Date(Date.now() - ageMs);
      utimesSync(file, t, t);
      return file;
    };
    // A live instance elsewhere (another container): its lease is fresh, whatever its pid.
    const live = folder('cia-body-00112233aabbccdd-1');
    lease('00112233aabbccdd', 1000);
    // A dead one: its lease stopped being refreshed, or was never left behind.
    const stale = folder('cia-body-8899aabbccddeeff-1');
    const staleLease = lease('8899aabbccddeeff', LEASE_STALE_MS + 60_000);
    const unleased = folder('cia-body-0123456789abcdef-1');
    // This process's own folder (a request in flight).
    const own = bodyScratchDir(root);
    mkdirSync(own);
    assert.ok(basename(own).startsWith(bodyScratchPrefix()));
    // Folders named by a pid (before the leases): kept while that pid lives here, as before.
    const oldLive = folder(`cia-body-${process.ppid}-1`);
    const unrelated = folder('cia-bodyguard');
    sweepBodyScratch(root);
    assert.deepEqual(
      [live, stale, staleLease, unleased, own, oldLive, unrelated].map((p) => existsSync(p)),
      [true, false, false, false, true, true, true],
    );
    // Its own lease is there for the next instance's sweep to see.
    assert.ok(existsSync(join(root, `${bodyScratchPrefix().slice(0, -1)}.lease`)));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
