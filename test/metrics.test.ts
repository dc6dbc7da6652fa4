/**
 * Prometheus metrics through the real server (issue 18 "Operations"): what a scraper reads after
 * known traffic, behind ADMIN_TOKEN on the main port or on METRICS_PORT.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMBEDDED_DB_TEMPLATE, startServer, type TestServer } from './helpers/server.js';
import { startService } from '../server/start.js';
import { echoOnlyConfig, testServiceConfig } from './fixtures/test-plugins.js';

/** The value of one sample line (exact labels, in prom-client's order), or undefined. */
function sample(text: string, line: string): number | undefined {
  const hit = text.split('\n').find((l) => l.startsWith(line + ' '));
  return hit === undefined ? undefined : Number(hit.slice(line.length + 1));
}

describe('metrics on the main port, behind ADMIN_TOKEN', () => {
  let s: TestServer;
  let text = '';
  before(async () => {
    s = await startServer({ serviceConfig: testServiceConfig() });
    const { key } = await s.createKey({ credits: 1000 });
    const { key: slow } = await s.createKey({ credits: 1000, rateLimitPerMinute: 1 });
    const run = (k: string, extra: Record<string, unknown> = {}) => s.call('POST', '/api/v2/run', { key: k, body: { type: 'capability', id: 'test_echo', input: { text: 'hi' }, ...extra } });
    assert.equal((await run(key)).status, 200); // served by test_echo after test_keyed and test_fail
    assert.equal((await run(key)).status, 200);
    assert.equal((await run(key, { provider: 'test_fail' })).status, 502);
    assert.equal((await run(slow)).status, 200);
    assert.equal((await run(slow)).status, 429);
    assert.equal((await s.call('GET', '/api/v2/balance', { key: 'cia_nope' })).status, 401);
    const res = await s.call('GET', '/metrics', { key: s.adminToken });
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /^text\/plain; version=0\.0\.4/);
    text = res.text;
  });
  after(() => s.close());

  it('refuses a scrape without the admin token', async () => {
    assert.equal((await s.call('GET', '/metrics')).status, 401);
    assert.equal((await s.call('GET', '/metrics', { key: 'wrong' })).status, 401);
  });

  it('counts calls by lane, target, provider and status, and the credits charged', () => {
    assert.equal(sample(text, 'cia_calls_total{lane="v2",target="test_echo",provider="test_echo",status="200",code=""}'), 3);
    assert.equal(sample(text, 'cia_calls_total{lane="v2",target="test_echo",provider="test_fail",status="502",code="UPSTREAM_ERROR"}'), 1);
    assert.equal(sample(text, 'cia_credits_charged_total{lane="v2",target="test_echo",provider="test_echo"}'), 30);
    assert.equal(sample(text, 'cia_call_duration_seconds_count{lane="v2",target="test_echo"}'), 4);
    // The rate-limited call was refused before it named a target.
    assert.equal(sample(text, 'cia_calls_total{lane="v2",target="(before target)",provider="",status="429",code="RATE_LIMITED"}'), 1);
  });

  it('counts upstream errors and fallbacks by provider', () => {
    assert.equal(sample(text, 'cia_fallbacks_total{provider="test_fail",code="UPSTREAM_ERROR"}'), 3);
    // test_keyed has no key: it is left out of the chain, not tried and failed.
    assert.equal(sample(text, 'cia_fallbacks_total{provider="test_keyed",code="NOT_CONFIGURED"}'), undefined);
    assert.equal(sample(text, 'cia_upstream_errors_total{provider="test_fail",code="UPSTREAM_ERROR"}'), 4);
  });

  it('counts rate-limit refusals and every HTTP answer, unauthenticated ones too', () => {
    assert.equal(sample(text, 'cia_refusals_total{reason="RATE_LIMITED",lane="v2"}'), 1);
    assert.equal(sample(text, 'cia_http_requests_total{lane="v2",status="401"}'), 1);
    assert.equal(sample(text, 'cia_http_requests_total{lane="v2",status="200"}'), 3);
    assert.ok((sample(text, 'cia_http_request_duration_seconds_count{lane="v2"}') ?? 0) >= 6);
  });

  it('shows group-commit batch sizes and process figures', () => {
    assert.ok((sample(text, 'cia_group_commit_batch_size_count{writer="ledger"}') ?? 0) >= 1, text.slice(0, 500));
    assert.ok((sample(text, 'cia_group_commit_batch_size_sum{writer="ledger"}') ?? 0) >= 3);
    assert.ok((sample(text, 'cia_process_resident_memory_bytes') ?? 0) > 0);
    assert.equal(sample(text, 'cia_http_requests_in_flight'), 1);
    assert.equal(sample(text, 'cia_body_bytes_in_flight'), 0);
  });
});

describe('metrics on METRICS_PORT', () => {
  it('serve /metrics without a token on their own listener, and not on the main port', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cia-metrics-'));
    const running = await startService({ PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN: 't', LOG_LEVEL: 'error', EMBEDDED_DB_TEMPLATE }, { serviceConfig: echoOnlyConfig() });
    try {
      assert.ok(running.metricsUrl);
      const res = await fetch(running.metricsUrl + '/metrics');
      assert.equal(res.status, 200);
      assert.match(await res.text(), /# TYPE cia_calls_total counter/);
      assert.equal((await fetch(running.metricsUrl + '/api/v2/balance')).status, 404);
      assert.equal((await fetch(running.url + '/metrics', { headers: { authorization: 'Bearer t' } })).status, 404);
    } finally {
      await running.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
