/**
 * Lazy one-time work (a module loaded, a document or catalogue built at first use): every caller
 * shares the one promise while it runs and once it has succeeded; a failed attempt is forgotten,
 * so the next caller tries again and reports its own error instead of a stale one.
 */
export function retriedOnce<T>(make: () => Promise<T>): () => Promise<T> {
  let attempt: Promise<T> | undefined;
  return () => {
    if (attempt) return attempt;
    const mine = make();
    attempt = mine;
    mine.catch(() => {
      if (attempt === mine) attempt = undefined;
    });
    return mine;
  };
}
