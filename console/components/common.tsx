/** Small shared pieces: number and time formats, a message line, a data loader hook. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, errorText, type ApiResponse } from '../api.js';

/** A number with thousands separators. */
export function num(n: number | null | undefined): string {
  return n === null || n === undefined ? '–' : n.toLocaleString('en-GB');
}

/** A date-time in the reader's zone, short. */
export function when(iso: string | Date): string {
  const d = new Date(iso);
  return d.toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'medium' });
}

/** GETs `path` (re-run when it changes or on `reload`); the answer, an error text, and the reload. */
export function useGet<T = any>(path: string | null): { data: T | undefined; error: string; reload: () => void; loading: boolean } {
  const [state, setState] = useState<{ data?: T; error: string; loading: boolean }>({ error: '', loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!path) return;
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    void api<T>('GET', path).then((r: ApiResponse<T>) => {
      if (!live) return;
      setState(r.ok ? { data: r.json, error: '', loading: false } : { error: errorText(r), loading: false });
    });
    return () => {
      live = false;
    };
  }, [path, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, reload, loading: state.loading };
}

/** A status line announced to screen readers. */
export function Status(props: { error?: string; ok?: string }) {
  if (props.error) return <p role="alert" class="error">{props.error}</p>;
  if (props.ok) return <p role="status" class="ok">{props.ok}</p>;
  return null;
}

/** Saves text as a download (CSV export). */
export function download(name: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** One CSV cell, quoted when needed; a leading formula character is neutralised for spreadsheets. */
export function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
