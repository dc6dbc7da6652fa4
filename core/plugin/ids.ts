/**
 * Id grammar (design: "plugin/ id grammar"): providers and capabilities are snake_case
 * (`search_a`, `search_news`); an endpoint id is derived as `<provider>.<operation>`.
 */

/** snake_case: lower-case letters, digits and single underscores, starting with a letter. */
export const SNAKE_ID = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** True when `id` is a valid provider, capability or operation name. */
export function isSnakeId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= 64 && SNAKE_ID.test(id);
}

/** The one way an endpoint id is built, so it is never typed twice. */
export function endpointId(pluginId: string, operation: string): string {
  return `${pluginId}.${operation}`;
}

/** Splits `<provider>.<operation>`; undefined when the id is not of that form. */
export function parseEndpointId(id: string): { provider: string; operation: string } | undefined {
  const dot = id.indexOf('.');
  if (dot <= 0 || dot !== id.lastIndexOf('.')) return undefined;
  const provider = id.slice(0, dot);
  const operation = id.slice(dot + 1);
  return isSnakeId(provider) && isSnakeId(operation) ? { provider, operation } : undefined;
}

/** `searchA` / `baseUrl` → `SEARCH_A` / `BASE_URL`, for environment variable names. */
export function envName(...parts: string[]): string {
  return parts
    .map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2'))
    .join('_')
    .toUpperCase();
}
