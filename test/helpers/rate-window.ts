/**
 * The per-key rate limit counts in fixed one-minute windows aligned to the clock
 * (core/ratelimit): a test that fills a key's window and expects the next request refused must
 * not straddle a minute's turn, or the refusal never comes.
 */

/** Waits, when fewer than `needMs` remain of the current minute, for the next one to start. */
export async function clearOfMinuteTurn(needMs = 10_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}
