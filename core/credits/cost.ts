/**
 * Cost rules as data (design: "Keys, credits, limits"). A rule says how much to reserve before a
 * run (the most the request can cost) and how much to charge after it from the units the handler
 * reported. Handlers never compute prices.
 */

/** Units a handler reports through its usage recorder, e.g. `{ reviews: 23 }` or `{ output_bytes: 1234 }`. */
export type Units = Record<string, number>;

/** `a` and `b` added unit by unit. */
export function addUnits(a: Units, b: Units): Units {
  const sum: Units = { ...a };
  for (const [unit, n] of Object.entries(b)) sum[unit] = (sum[unit] ?? 0) + n;
  return sum;
}

/** A cost rule: serialisable description plus the two functions the executor calls. */
export interface CostRule<I = any> {
  /** Machine-readable description shown by `/api/v2/details` and the README. */
  readonly describe: CostDescription;
  /** Credits to reserve before running: the maximum this input can cost. */
  reserve(input: I): number;
  /**
   * Credits to hold up front when that maximum is far above what most inputs cost (a file's
   * pages or a recording's minutes are only known once it is read): the handler then grows the
   * hold with `ctx.reserveFor(units)` once it has measured its input, before its costly work,
   * up to `reserve(input)`. Without it the whole maximum is held up front.
   */
  initial?(input: I): number;
  /** Credits to charge after success, from the reported units; never more than `reserve(input)`. */
  settle(input: I, units: Units): number;
}

/** What a cost rule looks like to a client. */
export type CostDescription =
  | { kind: 'flat'; credits: number }
  | { kind: 'per_unit'; unit: string; credits: number; per: number; note?: string }
  | { kind: 'per_output_mb'; credits: number; perMb: number; maxMb: number }
  | { kind: 'custom'; note: string };

/** A fixed price per successful request. */
export function flat(credits: number): CostRule {
  return { describe: { kind: 'flat', credits }, reserve: () => credits, settle: () => credits };
}

/**
 * `credits` per started block of `per` units (spec §8.1: "50 per 10 reviews, rounded up").
 * `max(input)` is the most units the input can produce; the price per block may depend on the
 * input (image models).
 */
export function perUnit<I = any>(opts: {
  unit: string;
  credits: number | ((input: I) => number);
  per?: number;
  max: (input: I) => number;
  note?: string;
}): CostRule<I> {
  const per = opts.per ?? 1;
  const price = (input: I) => (typeof opts.credits === 'function' ? opts.credits(input) : opts.credits);
  const blocks = (units: number) => Math.ceil(Math.max(0, units) / per);
  return {
    describe: {
      kind: 'per_unit',
      unit: opts.unit,
      credits: typeof opts.credits === 'number' ? opts.credits : 0,
      per,
      ...(opts.note ? { note: opts.note } : {}),
    },
    reserve: (input) => blocks(opts.max(input)) * price(input),
    settle: (input, units) => Math.min(blocks(units[opts.unit] ?? 0), blocks(opts.max(input))) * price(input),
  };
}

/** Bytes in one megabyte as used for pricing (decimal, like file sizes shown to users). */
export const MB = 1_000_000;

/**
 * `credits` per started `perMb` megabytes of output (spec §8.1: "50 per 100 MB of output PDF"),
 * so any non-empty output costs at least one block. Reserves for the largest allowed output.
 */
export function perOutputMb(opts: { credits: number; perMb: number; maxMb: number }): CostRule {
  const blockBytes = opts.perMb * MB;
  const maxBlocks = Math.max(1, Math.ceil((opts.maxMb * MB) / blockBytes));
  return {
    describe: { kind: 'per_output_mb', credits: opts.credits, perMb: opts.perMb, maxMb: opts.maxMb },
    reserve: () => maxBlocks * opts.credits,
    settle: (_input, units) => {
      const bytes = units.output_bytes ?? 0;
      const blocks = Math.max(1, Math.ceil(bytes / blockBytes));
      return Math.min(blocks, maxBlocks) * opts.credits;
    },
  };
}

/** Checks a computed amount is a usable credit figure (boot validation and executor guard). */
export function isCreditAmount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}
