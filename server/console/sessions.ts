/**
 * Console sessions (issue 26 "Sign-in"): a random id in an httpOnly cookie names a session held
 * in this process, which keeps the secret the console calls the API with (the admin token or the
 * key). The browser never sees the secret again after signing in, so no script, URL or storage
 * can leak it. Sessions end after an idle period or at sign-out, and die with the process.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** Who signed in. */
export type ConsoleRole = 'admin' | 'key';

/** One signed-in browser. */
export interface ConsoleSession {
  role: ConsoleRole;
  /** What the console's API calls carry as their bearer token. */
  secret: string;
  /** Echoed by the page in `X-CSRF-Token` on every state-changing call. */
  csrf: string;
  /** The key's id and name (key holders), for the page header. */
  keyId?: string;
  name?: string;
  lastSeen: number;
}

/** Sessions by id, with idle expiry. */
export class SessionStore {
  private readonly sessions = new Map<string, ConsoleSession>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly idleMs: number, private readonly now: () => number = Date.now) {
    this.timer = setInterval(() => this.sweep(), Math.min(Math.max(idleMs, 1000), 60_000));
    this.timer.unref();
  }

  /** Starts a session; returns its id (the cookie's value). */
  create(s: Omit<ConsoleSession, 'csrf' | 'lastSeen'>): { id: string; session: ConsoleSession } {
    const id = randomBytes(32).toString('base64url');
    const session: ConsoleSession = { ...s, csrf: randomBytes(24).toString('base64url'), lastSeen: this.now() };
    this.sessions.set(id, session);
    return { id, session };
  }

  /** The live session of a cookie value, touched (its idle clock restarts); undefined when expired or unknown. */
  touch(id: string | undefined): ConsoleSession | undefined {
    if (!id) return undefined;
    const s = this.sessions.get(id);
    if (!s) return undefined;
    if (this.now() - s.lastSeen > this.idleMs) {
      this.sessions.delete(id);
      return undefined;
    }
    s.lastSeen = this.now();
    return s;
  }

  /** Ends a session (sign-out). */
  end(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  // Idle sessions are dropped even if never presented again, so memory holds only live ones.
  private sweep(): void {
    const t = this.now();
    for (const [id, s] of this.sessions) if (t - s.lastSeen > this.idleMs) this.sessions.delete(id);
  }

  /** Stops the sweeper. */
  close(): void {
    clearInterval(this.timer);
    this.sessions.clear();
  }
}

/** True when `given` is the session's CSRF token (constant time). */
export function csrfMatches(session: ConsoleSession, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Failed sign-ins per client address in a fixed one-minute window: after `max` failures every
 * further try in that window is refused (429 with Retry-After) before the secret is even checked.
 */
export class SignInThrottle {
  private readonly windows = new Map<string, { failures: number; resetAt: number }>();

  constructor(private readonly max = 5, private readonly windowMs = 60_000, private readonly now: () => number = Date.now) {}

  /** Seconds to wait when `address` may not try now; 0 when it may. */
  retryAfter(address: string): number {
    const w = this.windows.get(address);
    if (!w) return 0;
    if (w.resetAt <= this.now()) {
      this.windows.delete(address);
      return 0;
    }
    return w.failures >= this.max ? Math.ceil((w.resetAt - this.now()) / 1000) : 0;
  }

  /** Counts a failed try. */
  fail(address: string): void {
    const t = this.now();
    let w = this.windows.get(address);
    if (!w || w.resetAt <= t) {
      // Addresses whose window has passed go, so the map holds only the last minute's offenders.
      if (this.windows.size > 10_000) for (const [a, x] of this.windows) if (x.resetAt <= t) this.windows.delete(a);
      w = { failures: 0, resetAt: t + this.windowMs };
      this.windows.set(address, w);
    }
    w.failures += 1;
  }
}
