/**
 * Admin operations, shared by the HTTP admin API and the CLI so both behave the same: keys,
 * credits (with a ledger entry and a reason), policies, usage.
 */
import type { KeyStore } from '../../core/keys/key-store.js';
import type { KeyRecord, KeyUpdate } from '../../core/keys/types.js';
import type { Ledger } from '../../core/credits/ledger.js';
import type { UsageLog, UsageQuery } from '../../core/usage/usage-log.js';
import { policyProblem } from '../../core/policy/decide.js';
import { InputError, NotFoundError } from '../../core/errors.js';

const MAX_CREDITS = 1_000_000_000_000;

// PostgreSQL text cannot hold NUL (the insert fails: a 500, issue 18 finding 5), and a key name or
// reason is a label: no control character belongs in one. Tabs and newlines may stay in a reason.
const NAME_CONTROLS = /[\u0000-\u001f\u007f]/;
const REASON_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** The policy's 400 text, if any: its shape (policyProblem), then ids that PostgreSQL's jsonb cannot store. */
function policyError(policy: unknown): string | undefined {
  const problem = policyProblem(policy);
  if (problem || policy === undefined) return problem;
  const ids = Object.values(policy as Record<string, string[]>).flat();
  return ids.some((id) => NAME_CONTROLS.test(id)) ? 'policy ids must not contain control characters.' : undefined;
}

/** A key id that cannot exist (control characters) is simply not found, never a database error. */
function checkId(id: string): string {
  if (NAME_CONTROLS.test(id)) throw new NotFoundError('API key not found.');
  return id;
}

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
    if (NAME_CONTROLS.test(name)) throw new InputError("'name' must not contain control characters.");
    const credits = intField(body, 'credits', { min: 0, max: MAX_CREDITS }) ?? 0;
    const rate = intField(body, 'rateLimitPerMinute', { min: 1, max: 1_000_000 }) ?? this.defaultRateLimit;
    const budget = intField(body, 'budget', { min: 0, max: MAX_CREDITS, nullable: true }) ?? null;
    const problem = policyError(body.policy);
    if (problem) throw new InputError(problem);
    const { record, key } = await this.keys.create({ name: name.trim(), credits, rateLimitPerMinute: rate, budget, policy: body.policy as KeyRecord['policy'] });
    return { ...(await this.view(record)), key };
  }

  /** Keys, newest first; `search` matches name, id or prefix. */
  async listKeys(page: number, limit: number, search?: string) {
    if (search !== undefined && (search.length > 200 || NAME_CONTROLS.test(search))) throw new InputError("'search' must be up to 200 characters without control characters.");
    const recs = await this.keys.list(page, limit, search || undefined);
    return Promise.all(recs.map((r) => this.view(r)));
  }

  async getKey(id: string) {
    return this.view(await this.keys.get(checkId(id)));
  }

  /** Changes active flag, name, rate limit, budget or policy. */
  async updateKey(id: string, body: Record<string, unknown>) {
    const patch: KeyUpdate = {};
    if (body.name !== undefined) {
      if (typeof body.name !== 'string' || !body.name.trim() || body.name.length > 200) throw new InputError("'name' must be a non-empty string (up to 200 characters).");
      if (NAME_CONTROLS.test(body.name)) throw new InputError("'name' must not contain control characters.");
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
      const problem = policyError(body.policy);
      if (problem) throw new InputError(problem);
      patch.policy = body.policy as KeyRecord['policy'];
    }
    if (body.credits !== undefined) throw new InputError("Change credits with POST /admin/keys/:id/credits, which records a reason.");
    const rec = await this.keys.update(checkId(id), patch);
    this.ledger.invalidate(id);
    return this.view(rec);
  }

  /** A new secret for the key, shown this once; the old one is refused from now on. */
  async rotateKey(id: string) {
    const { record, key } = await this.keys.rotate(checkId(id));
    return { ...(await this.view(record)), key };
  }

  /** Adds (amount > 0) or deducts (amount < 0) credits with a reason. */
  async adjustCredits(id: string, body: Record<string, unknown>) {
    const amount = body.amount;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount === 0 || Math.abs(amount) > MAX_CREDITS) throw new InputError("'amount' must be a non-zero integer (negative to deduct).");
    const reason = body.reason;
    if (typeof reason !== 'string' || !reason.trim() || reason.length > 500) throw new InputError("'reason' is required (1 to 500 characters).");
    if (REASON_CONTROLS.test(reason)) throw new InputError("'reason' must not contain control characters.");
    await this.keys.get(checkId(id));
    await this.ledger.adjust(id, amount, reason.trim());
    return this.getKey(id);
  }

  async usageOf(id: string, q: UsageQuery) {
    await this.keys.get(checkId(id));
    return this.usage.list(id, q);
  }

  async transactionsOf(id: string, page: number, limit: number) {
    await this.keys.get(checkId(id));
    return this.ledger.entries(id, page, limit);
  }
}
