/**
 * The usual meaning of a provider's HTTP status (spec §7.1), for provider clients: our credentials
 * → 500 `Service authentication failed`, its rate limit → 503, its rejection of the input → 400,
 * anything else → 502. Clients handle their provider's special cases first and call this last.
 */
import { InputError, ProviderAuthError, ServiceError, UpstreamError, UpstreamRateLimitError } from '../errors.js';

/** Maps a failed provider response to a catalogue error; `message` is the provider's own text. */
export function providerStatusError(provider: string, status: number, message: string): ServiceError {
  const cause = new Error(`${provider} HTTP ${status}: ${message}`);
  if (status === 401 || status === 403) return new ProviderAuthError({ cause });
  if (status === 429) return new UpstreamRateLimitError({ cause });
  if (status === 400) return new InputError(`${provider} rejected the request: ${message || 'invalid input'}.`, { cause });
  return new UpstreamError(`Failed to retrieve data from ${provider}: ${message || `HTTP ${status}`}.`, { cause });
}
