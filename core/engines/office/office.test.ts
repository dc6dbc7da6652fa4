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

/** Processes (any) whose command line names this directory. */
test('timeout, recycling, bad input and a clean shutdown', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'office-test-'));
  const office = createOfficeEngine({
    dataDir,
    publicBaseUrl: () => '',
    env: { OFFICE_POOL_SIZE: '1', OFFICE_TIMEOUT_MS: '1500', OFFICE_MAX_CONVERSIONS: '2' },
    log,
  });
  try {
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

    // A document that takes longer than the timeout to lay out: the conversion fails with the
    // spec's text and the worker is replaced; the next conversion works.
    const long = Array.from({ length: 120_000 }, (_, i) => `Line ${i} of a long document.`).join('\n');
    await assert.rejects(office.convert(text(long)), (err: unknown) => err instanceof OperationFailedError && /^Failed to convert to PDF: conversion timed out/.test(err.message));
    const after = await office.convert(text('after the hang'));
    assert.ok(after.pdf.byteLength > 0);
    assert.ok(office.stats().workers[0]!.restarts >= 2);
    assert.equal(office.stats().workers[0]!.kills, 1, 'the hung worker was killed');
    assert.equal(office.stats().workers[0]!.crashes, 0);

    // An encrypted document cannot be opened without its password: a 400, and the worker lives on.
    const locked = readFileSync(join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'documents', 'protected.odt'));
    await assert.rejects(office.convert({ data: locked, extension: 'odt' }), InputError);
    await office.convert(text('still fine'));
  } finally {
    await office.close();
  }
  assert.deepEqual(processesUsing(dataDir), []);
  await rm(dataDir, { recursive: true, force: true });
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
