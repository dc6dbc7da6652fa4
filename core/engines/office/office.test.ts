/**
 * LibreOffice pool behaviour (spec §4.6; issue 5): a hang past the timeout fails cleanly and the
 * worker is replaced, workers are recycled after N conversions, unreadable input is a 400, and
 * closing leaves no process behind. One worker, tiny documents.
 */
import { processesUsing } from '../processes.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfficeEngine } from './index.js';
import { InputError, OperationFailedError } from '../../errors.js';

const log = { debug() {}, info() {}, warn() {}, error() {} };
const text = (s: string) => ({ data: new TextEncoder().encode(s), extension: 'txt' });

/** An engine of one worker on its own data directory. */
async function oneWorker(env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'office-test-'));
  return { dataDir, office: createOfficeEngine({ dataDir, publicBaseUrl: () => '', env: { OFFICE_POOL_SIZE: '1', ...env }, log }) };
}

/** After a close: no process left behind, and the data directory goes. */
async function noneLeft(dataDir: string) {
  assert.deepEqual(processesUsing(dataDir), []);
  await rm(dataDir, { recursive: true, force: true });
}

// The hang test's timeout, in plain conversions right after a worker start (the slowest kind, and
// the kind the conversion after the hang is): a fixed 1.5 s was exceeded by one of those under a
// full parallel test run. The hang document takes some 120 such conversions, so it still overruns.
const TIMEOUT_PER_PLAIN = 10;
const MIN_TIMEOUT_MS = 1_500;
const MAX_TIMEOUT_MS = 8_000;

test('timeout, recycling, bad input and a clean shutdown', async (t) => {
  // First a worker with the default timeout: recycling, bad input, and how long a plain
  // conversion takes on this machine right now.
  const plain = await oneWorker({ OFFICE_MAX_CONVERSIONS: '2' });
  let slowestPlainMs = 0;
  try {
    const { office, dataDir } = plain;
    await office.warm();
    assert.ok(processesUsing(dataDir).length >= 2, 'driver and soffice are running');

    const first = await office.convert(text('one'));
    assert.equal(Buffer.from(first.pdf.subarray(0, 5)).toString(), '%PDF-');
    await office.convert(text('two'));
    // Two conversions done: the worker is recycled before the third.
    const third = await office.convert(text('three'));
    assert.equal(Buffer.from(third.pdf.subarray(0, 5)).toString(), '%PDF-');
    assert.equal(office.stats().workers[0]!.restarts, 1);
    assert.equal(office.stats().workers[0]!.recycles, 1, 'a routine recycle, not a crash');
    assert.equal(office.stats().workers[0]!.crashes, 0);
    // The first conversion of each worker (after warm-up, after the recycle).
    slowestPlainMs = Math.max(first.convertMs, third.convertMs);

    // An encrypted document cannot be opened without its password: a 400, and the worker lives on.
    const locked = readFileSync(join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'documents', 'protected.odt'));
    await assert.rejects(office.convert({ data: locked, extension: 'odt' }), InputError);
    await office.convert(text('still fine'));
  } finally {
    await plain.office.close();
  }
  await noneLeft(plain.dataDir);

  // A document that takes longer than the timeout to lay out: the conversion fails with the
  // spec's text and the worker is replaced; the next conversion works.
  const timeoutMs = Math.min(MAX_TIMEOUT_MS, Math.max(MIN_TIMEOUT_MS, TIMEOUT_PER_PLAIN * slowestPlainMs));
  t.diagnostic(`slowest plain conversion ${slowestPlainMs} ms, hang timeout ${timeoutMs} ms`);
  const hang = await oneWorker({ OFFICE_TIMEOUT_MS: String(timeoutMs) });
  try {
    const { office } = hang;
    await office.warm();
    const long = Array.from({ length: 120_000 }, (_, i) => `Line ${i} of a long document.`).join('\n');
    await assert.rejects(
      office.convert(text(long)),
      (err: unknown) => err instanceof OperationFailedError && /^Failed to convert to PDF: conversion timed out/.test(err.message),
      `the long document converted within ${timeoutMs} ms`,
    );
    const after = await office.convert(text('after the hang'));
    assert.ok(after.pdf.byteLength > 0);
    assert.ok(office.stats().workers[0]!.restarts >= 1);
    assert.equal(office.stats().workers[0]!.kills, 1, 'the hung worker was killed');
    assert.equal(office.stats().workers[0]!.crashes, 0);
  } finally {
    await hang.office.close();
  }
  await noneLeft(hang.dataDir);
});

test('without a working bubblewrap the pool says loudly that LibreOffice runs unconfined', async () => {
  for (const bwrap of ['/nonexistent/bwrap', '/bin/false']) {
    const warnings: string[] = [];
    const dataDir = await mkdtemp(join(tmpdir(), 'office-test-'));
    const office = createOfficeEngine({
      dataDir,
      publicBaseUrl: () => '',
      env: { OFFICE_BWRAP_BIN: bwrap },
      log: { ...log, warn: (_o: unknown, msg?: string) => void warnings.push(String(msg)) },
    });
    await office.close();
    await rm(dataDir, { recursive: true, force: true });
    assert.equal(warnings.length, 1, bwrap);
    assert.match(warnings[0]!, /LibreOffice runs unconfined/);
  }
});
