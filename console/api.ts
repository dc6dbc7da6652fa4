/**
 * The console's only way to the service: the session endpoints and `/console/api/*`, which the
 * server forwards to the public API with the session's secret. The CSRF token lives in this
 * module's memory only (never localStorage, never a URL).
 */

/** Who is signed in. */
export interface Me {
  role: 'admin' | 'key';
  csrf: string;
  keyId: string | null;
  name: string | null;
  idleSeconds: number;
}

/** A parsed answer. */
export interface ApiResponse<T = any> {
  status: number;
  ok: boolean;
  json: T;
  text: string;
  headers: Headers;
}

let csrf = '';
let onSignedOut: () => void = () => {};

/** Called when the server says the session is gone. */
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

async function send<T>(method: string, url: string, body?: unknown): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, ok: res.ok, json, text, headers: res.headers };
}

/** The current session, or null. */
export async function currentSession(): Promise<Me | null> {
  const r = await send<Me>('GET', '/console/session');
  if (!r.ok || !r.json?.role) return null;
  csrf = r.json.csrf;
  return r.json;
}

/** Signs in; the error text on failure. */
export async function signIn(role: 'admin' | 'key', secret: string): Promise<{ me?: Me; error?: string; retryAfter?: string }> {
  const r = await send<Me & { error?: string }>('POST', '/console/session', { role, secret });
  if (!r.ok) return { error: r.json?.error ?? `Sign-in failed (${r.status}).`, retryAfter: r.headers.get('retry-after') ?? undefined };
  csrf = r.json.csrf;
  return { me: r.json };
}

/** Ends the session. */
export async function signOut(): Promise<void> {
  await send('DELETE', '/console/session');
  csrf = '';
}

/** Calls the API through the console: `path` is the API's own path, e.g. `/admin/keys`. */
export async function api<T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
  const r = await send<T>(method, '/console/api' + path, body);
  // The session expired, or its key was rotated or deactivated: nothing more can work; sign in again.
  if (r.status === 401) {
    if ((r.json as any)?.error !== 'Not signed in, or the session has expired.') await signOut();
    onSignedOut();
  }
  return r;
}

/** The error text of a failed answer (v1 `{ error }`, v2 envelope, admin `{ error }`). */
export function errorText(r: ApiResponse): string {
  return (r.json && typeof r.json.error === 'string' ? r.json.error : r.text.slice(0, 300)) || `HTTP ${r.status}`;
}

/** Builds a query string from defined, non-empty values. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}
