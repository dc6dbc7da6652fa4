/**
 * How a call ended, as one comparable string (issue 29): provider tests compare what a caller sees
 * (`'400 …'`, `'502 …'`) with `assert.equal` instead of each file writing its own catcher. Also
 * the two waits such tests need: for a stage to be reached, and for a fake to stay quiet.
 */

/** `'200'` when the call succeeds, else `'<status> <message>'` of its error (status 0 when it has none). */
export function outcome(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => '200',
    (e: { status?: number; message?: string }) => `${e?.status ?? 0} ${e?.message ?? String(e)}`,
  );
}

/**
 * Waits until `cond()` holds, checking every 10 ms; fails (naming `what`) after `ms` rather than
 * hanging the run. For the moment a background call reaches a stage a test wants to act at.
 */
export async function eventually(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Waits `ms` and fails (naming `what`) if the fake received a request after the first `since` of
 * its log (default: from now): proof that polling stopped once the caller left or the deadline passed.
 */
export async function staysQuiet(fake: { requests: unknown[] }, ms: number, what: string, since = fake.requests.length): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
  if (fake.requests.length > since) throw new Error(`${what}: the fake received ${fake.requests.length - since} request(s)`);
}
