/** Path-based navigation inside /console/app/ without reloading the page. */
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

/** Goes to a console path such as `/console/app/keys?id=key_x`. */
export function navigate(to: string): void {
  history.pushState(null, '', to);
  for (const l of listeners) l();
}

/** The current page name (after /console/app/) and its query. */
export function useRoute(): { page: string; query: URLSearchParams } {
  const [, force] = useState(0);
  useEffect(() => {
    const on = () => force((n) => n + 1);
    listeners.add(on);
    window.addEventListener('popstate', on);
    return () => {
      listeners.delete(on);
      window.removeEventListener('popstate', on);
    };
  }, []);
  const m = /^\/console\/app\/([a-z-]+)/.exec(location.pathname);
  return { page: m ? m[1]! : '', query: new URLSearchParams(location.search) };
}

/** Click handler for in-console links: same-tab plain clicks navigate without a reload. */
export function linkClick(e: MouseEvent): void {
  const a = (e.target as HTMLElement).closest('a');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target) return;
  const href = a.getAttribute('href') ?? '';
  if (!href.startsWith('/console/app/')) return;
  e.preventDefault();
  navigate(href);
}
