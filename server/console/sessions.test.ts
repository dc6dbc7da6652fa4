/** Console sessions end after the idle period (each request restarts it) and at sign-out; sign-in throttling counts failures per address per minute. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { csrfMatches, SessionStore, SignInThrottle } from './sessions.js';

describe('console sessions', () => {
  it('expire after the idle period, which every request restarts; sign-out ends them at once', () => {
    let now = 1_000_000;
    const store = new SessionStore(30_000, () => now);
    try {
      const { id, session } = store.create({ role: 'admin', secret: 's' });
      now += 29_000;
      assert.equal(store.touch(id), session);
      now += 29_000;
      assert.equal(store.touch(id), session, 'the last request restarted the clock');
      now += 30_001;
      assert.equal(store.touch(id), undefined, 'idle too long');
      assert.equal(store.touch(id), undefined);
      const b = store.create({ role: 'key', secret: 'k', keyId: 'key_1', name: 'n' });
      store.end(b.id);
      assert.equal(store.touch(b.id), undefined);
      assert.equal(store.touch(undefined), undefined);
      assert.notEqual(b.id, id);
      assert.ok(csrfMatches(b.session, b.session.csrf));
      assert.ok(!csrfMatches(b.session, b.session.csrf + 'x'));
      assert.ok(!csrfMatches(b.session, undefined));
    } finally {
      store.close();
    }
  });

  it('throttles an address after five failures in a minute, and lets it try again when the minute ends', () => {
    let now = 0;
    const t = new SignInThrottle(5, 60_000, () => now);
    for (let i = 0; i < 5; i++) {
      assert.equal(t.retryAfter('1.2.3.4'), 0);
      t.fail('1.2.3.4');
      now += 1000;
    }
    assert.equal(t.retryAfter('1.2.3.4'), 55);
    assert.equal(t.retryAfter('5.6.7.8'), 0, 'per address');
    now = 60_000;
    assert.equal(t.retryAfter('1.2.3.4'), 0);
  });
});
