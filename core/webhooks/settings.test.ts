/** Webhook settings: documented defaults, and a bad value stops boot naming its variable. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WEBHOOK_SETTINGS_DOC, loadWebhookSettings } from './settings.js';

describe('webhook settings', () => {
  it('defaults to the documented values', () => {
    const s = loadWebhookSettings({});
    assert.deepEqual(
      [s.timeoutMs, s.retryLimit, s.retryDelaySeconds, s.concurrency].map(String),
      ['WEBHOOK_TIMEOUT_MS', 'WEBHOOK_RETRY_LIMIT', 'WEBHOOK_RETRY_DELAY_S', 'WEBHOOK_CONCURRENCY'].map((n) => WEBHOOK_SETTINGS_DOC[n]!.default),
    );
    // The poll's default depends on the store; the documented default names both.
    const poll = [loadWebhookSettings({}, 'postgres').pollMs, loadWebhookSettings({}, 'embedded').pollMs];
    assert.equal(WEBHOOK_SETTINGS_DOC.WEBHOOK_POLL_MS!.default, `${poll[0]} (PostgreSQL), ${poll[1]} (embedded)`);
  });

  it('reads values and refuses bad ones, below the polling floor included', () => {
    assert.equal(loadWebhookSettings({ WEBHOOK_RETRY_LIMIT: '0' }).retryLimit, 0);
    assert.throws(() => loadWebhookSettings({ WEBHOOK_RETRY_DELAY_S: '0.5' }), /WEBHOOK_RETRY_DELAY_S/);
    assert.throws(() => loadWebhookSettings({ WEBHOOK_POLL_MS: '100' }), /WEBHOOK_POLL_MS/);
  });
});
