/** Standard Webhooks signing, checked by an independent implementation (the `standardwebhooks` package). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, webhookHeaders } from './signing.js';

describe('webhook signing', () => {
  it('makes whsec_ secrets of 32 random bytes', () => {
    const a = newWebhookSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(a.slice(6), 'base64').length, 32);
    assert.notEqual(a, newWebhookSecret());
  });

  it('signs so that the reference verifier accepts the body and rejects any change', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'job.completed', jobId: 'job_1', data: { ok: 'é' } });
    const headers = webhookHeaders(secret, 'msg_1', body);
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(secret).verify(body.replace('job_1', 'job_2'), headers));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
    assert.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_2' }));
  });
});
