/** The deadline the executor and the HTTP engine share: who fired it, and a signal made late. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deadline } from './deadline.js';

const never = () => new Promise<never>(() => {});

describe('deadline', () => {
  it('the time limit rejects the race with its reason, says so, and aborts the signal', async () => {
    const d = deadline(undefined, 20, () => new Error('time is up'));
    const signal = d.signal;
    await assert.rejects(d.race(never()), /time is up/);
    assert.equal(d.timedOut, true);
    assert.equal(signal.aborted, true);
    d.end();
  });

  it("the caller's abort rejects the race with the caller's reason, not as a timeout", async () => {
    const caller = new AbortController();
    const d = deadline(caller.signal, 60_000, () => new Error('time is up'));
    const raced = d.race(never());
    caller.abort(new Error('client went away'));
    await assert.rejects(raced, /client went away/);
    assert.equal(d.timedOut, false);
    assert.equal((d.signal.reason as Error).message, 'client went away', 'a signal asked for after the abort is born aborted');
    d.end();
  });

  it('work that ends first wins, and end() stops the caller from reaching it', async () => {
    const caller = new AbortController();
    const d = deadline(caller.signal, 60_000, () => new Error('time is up'));
    assert.equal(await d.race(Promise.resolve(7)), 7);
    d.end();
    caller.abort(new Error('late'));
    assert.equal(d.signal.aborted, false);
  });

  it('a race started after the deadline fired rejects at once and does not leave the work unhandled', async () => {
    const caller = new AbortController();
    caller.abort(new Error('gone before the start'));
    const d = deadline(caller.signal, 60_000, () => new Error('time is up'));
    await assert.rejects(d.race(Promise.reject(new Error('work failed too'))), /gone before the start/);
    d.end();
  });
});
