/** Loading a job answer and keeping it fresh: a loader hook, and polling while something is live. */
import { useCallback, useEffect, useState } from 'preact/hooks';

type Answer<T> = { ok: true; value: T } | { ok: false; error: string; status: number };

/** Runs `load` when `key` changes or on `reload`; keeps the last value while a reload is on its way. */
export function useAnswer<T>(key: string, load: () => Promise<Answer<T>>): { value: T | undefined; error: string; reload: () => void } {
  const [state, setState] = useState<{ value?: T; error: string; key: string }>({ error: '', key });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    void load().then((a) => {
      if (!live) return;
      setState(a.ok ? { value: a.value, error: '', key } : { error: a.error, key });
    });
    return () => {
      live = false;
    };
    // `load` closes over what `key` names.
  }, [key, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  // A value loaded for another key (previous filters) is not shown as this one's.
  return { value: state.key === key ? state.value : undefined, error: state.key === key ? state.error : '', reload };
}

/** Calls `reload` every `ms` while `active` (the Jobs page: while a shown job is queued or running). */
export function usePoll(active: boolean, reload: () => void, ms = 1000): void {
  useEffect(() => {
    if (!active) return;
    const t = setInterval(reload, ms);
    return () => clearInterval(t);
  }, [active, reload, ms]);
}
