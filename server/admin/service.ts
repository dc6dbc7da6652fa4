/**
 * Admin operations, shared by the HTTP admin API and the CLI so both behave the same: keys,
 * credits (with a ledger entry and a reason), policies, usage.
 */
import type { KeyStore } from '../../core/keys/key-store.js';
import type { KeyRecord, KeyUpdate } from '../../core/keys/types.js';
import type { Ledger } from '../../core/credits/ledger.js';
import type { UsageLog, UsageQuery } from '../../core/usage/usage-log.js';
import { policyProblem } from '../../core/policy/decide.js';
import { InputError } from '../../core/errors.js';

const MAX_CREDITS = 1_000_000_000_000;

function intField(body: Record<string, unknown>, name: string, opts: { min: number; max: number; nullable?: boolean }): number | null | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === null && opts.nullable) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < opts.min || v > opts.max) {
    throw new InputError(`'${name}' must be an integer from ${opts.min} to ${opts.max}${opts.nullable ? ' or null' : ''}.`);
  }
  return v;
}

/** Admin operations over keys, ledger and usage. */
export class AdminService {
  constructor(
    private readonly keys: KeyStore,
    private readonly ledger: Ledger,
    private readonly usage: UsageLog,
    private readonly defaultRateLimit: number,
  ) {}

  private async view(rec: KeyRecord) {
    const b = await this.ledger.balance(rec);
    return {
      id: rec.id,
      name: rec.name,
      prefix: rec.prefix,
      active: rec.active,
      credits: b.credits,
      reserved: b.reserved,
      budget: rec.budget,
      spent: b.spent,
      periodStart: b.periodStart.toISOString(),
      rateLimitPerMinute: rec.rateLimit,
      policy: rec.policy,
      createdAt: rec.createdAt.toISOString(),
      updatedAt: rec.updatedAt.toISOString(),
    };
  }

  /** Creates a key; the response carries the plaintext key, shown this once. */
  async createKey(body: Record<string, unknown>) {
    const name = body.name;
    if (typeof name !== 'string' || !name.trim() || name.length > 200) throw new InputError("'name' is required (1 to 200 characters).");
    const credits = intField(body, 'credits', { min: 0, max: MAX_CREDITS }) ?? 0;
    const rate = intField(body, 'rateLimitPerMinute', { min: 1, max: 1_000_000 }) ?? this.defaultRateLimit;
    const budget = intField(body, 'budget', { min: 0, max: MAX_CREDITS, nullable: true }) ?? null;
    const problem = policyProblem(body.policy);
    if (problem) throw new InputError(problem);
    const { record, key } = await this.keys.create({ name: name.trim(), credits, rateLimitPerMinute: rate, budget, policy: body.policy as KeyRecord['policy'] });
    return { ...(await this.view(record)), key };
  }

  async listKeys(page: number, limit: number) {
    const recs = await this.keys.list(page, limit);
    return Promise.all(recs.map((r) => this.view(r)));
  }

  async getKey(id: string) {
    return this.view(await this.keys.get(id));
  }

  /** Changes active flag, name, rate limit, budget or policy. */
  async updateKey(id: string, body: Record<string, unknown>) {
    const patch: KeyUpdate = {};
    if (body.name !== undefined) {
      if (typeof body.name !== 'string' || !body.name.trim()) throw new InputError("'name' must be a non-empty string.");
      patch.name = body.name.trim();
    }
    if (body.active !== undefined) {
      if (typeof body.active !== 'boolean') throw new InputError("'active' must be a boolean.");
      patch.active = body.active;
    }
    const rate = intField(body, 'rateLimitPerMinute', { min: 1, max: 1_000_000 });
    if (rate !== undefined && rate !== null) patch.rateLimitPerMinute = rate;
    const budget = intField(body, 'budget', { min: 0, max: MAX_CREDITS, nullable: true });
    if (budget !== undefined) patch.budget = budget;
    if (body.policy !== undefined) {
      const problem = policyProblem(body.policy);
      if (problem) throw new InputError(problem);
      patch.policy = body.policy as KeyRecord['policy'];
    }
    if (body.credits !== undefined) throw new InputError("Change credits with POST /admin/keys/:id/credits, which records a reason.");
    const rec = await this.keys.update(id, patch);
    this.ledger.invalidate(id);
    return this.view(rec);
  }

  /** Adds (amount > 0) or deducts (amount < 0) credits with a reason. */
  async adjustCredits(id: string, body: Record<string, unknown>) {
    const amount = body.amount;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount === 0 || Math.abs(amount) > MAX_CREDITS) throw new InputError("'amount' must be a non-zero integer (negative to deduct).");
    const reason = body.reason;
    if (typeof reason !== 'string' || !reason.trim() || reason.length > 500) throw new InputError("'reason' is required (1 to 500 characters).");
    await this.keys.get(id);
    await this.ledger.adjust(id, amount, reason.trim());
    return this.getKey(id);
  }

  async usageOf(id: string, q: UsageQuery) {
    await this.keys.get(id);
    return this.usage.list(id, q);
  }

  async transactionsOf(id: string, page: number, limit: number) {
    await this.keys.get(id);
    return this.ledger.entries(id, page, limit);
  }
}
