/** Polling for tests that wait on something the server does in the background. */

/** Resolves with `probe`'s first answer that is neither undefined nor false; throws after `ms` naming `what`. */
export async function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
