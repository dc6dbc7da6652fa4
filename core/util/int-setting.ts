/** Integer settings read from the environment, shared by the engines that take them. */

type Env = Record<string, string | undefined>;

/**
 * `env[name]` as an integer of at least `min`, or `fallback` when unset; anything else stops boot
 * with a message naming the variable (a typo in a limit must not silently become the default).
 */
export function intSetting(env: Env, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got '${raw}'.`);
  return n;
}

/** `env[name]` as an integer of at least `min`, or `fallback` when unset or not such a number (the engines' lenient reading). */
export function intOr(env: Env, name: string, fallback: number, min = 1): number {
  const n = Number(env[name]);
  return Number.isInteger(n) && n >= min ? n : fallback;
}
