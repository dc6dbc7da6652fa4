/**
 * Words of a discovery query and of the entries it is matched against (issue 19: ranking by ids,
 * titles, summaries, tags and field names, with stemming, and no match on stop words alone).
 */

/** Words that say nothing about a job: a result matching only these is no match. */
const STOP_WORDS = new Set(
  'a an the of to for from in on at by with and or as is are be this that these those it its into via me my i we our you your please can could would how what which do does get give find show make want need some any all using use'.split(' '),
);

/**
 * A light stemmer, the same on both sides of a match, so `screenshots`, `crawling`, `scraped` and
 * `places` meet `screenshot`, `crawl`, `scrape` and `place`.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  // crawling → crawl, but a doubled consonant left by -ing/-ed (`shopping` → `shopp`) is halved.
  if (w.length > 4 && /([^aeiou])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}

/** Lower-case words of a text, identifiers split at `_`, `.`, `-` and camelCase humps. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** The stems of a text's meaningful words. */
export function stemsOf(text: string): string[] {
  return wordsOf(text).map(stem);
}

/** The stems of a query, without stop words (an empty list when it has only those). */
export function queryStems(query: string): string[] {
  return [...new Set(wordsOf(query).filter((w) => !STOP_WORDS.has(w)).map(stem))];
}
