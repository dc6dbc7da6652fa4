/**
 * The deployment files (deploy/, README "Running several instances") checked by machine, as far
 * as this machine can without Docker, Caddy or promtool: the YAML parses, every setting they
 * name is one the service reads, the health checks and ports agree with each other and with the
 * service, the supervisors wait long enough for a drain, every alert names metrics the running
 * service exports (and labels those metrics carry), and the systemd unit passes
 * `systemd-analyze verify` where that command exists.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { SETTINGS_DOC } from '../core/config.js';
import { configEnv } from '../core/registry/build.js';
import serviceConfig from '../plugins.config.js';
import { ServiceMetrics } from '../server/metrics/service-metrics.js';
import { startServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const deploy = (f: string) => readFile(join(root, 'deploy', f), 'utf8');

let compose: any;
let alerts: any;
let prometheus: any;
let envExample: Map<string, string>;
/** The `api` service's environment as compose gives it: the env file (its template here), then `environment`. */
let apiEnv: Map<string, string>;

/** `NAME=value` lines of an env file, commented-out ones too (they name settings as well). */
function envLines(text: string): { name: string; value: string; commented: boolean }[] {
  return [...text.matchAll(/^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => ({ name: m[2]!, value: m[3]!.trim(), commented: !!m[1] }));
}

/** Every environment variable the service reads: settings, plugin settings, and reads in the sources (as test/readme.test.ts collects them). */
async function variablesRead(): Promise<Set<string>> {
  const names = new Set<string>(Object.keys(SETTINGS_DOC));
  for (const [id, load] of Object.entries(serviceConfig.plugins)) {
    const def = (await load()).default;
    for (const [field, f] of Object.entries(def.config ?? {})) names.add(configEnv(id, field, f as never));
  }
  const files = (await readdir(root, { recursive: true })).filter((f) => /^(core|plugins|server)\/.*\.ts$/.test(f) && !f.endsWith('.test.ts') && !f.includes('fake.ts'));
  const read = /env\.([A-Z][A-Z0-9_]+)|env\[['"]([A-Z][A-Z0-9_]+)|\(env, ?['"]([A-Z][A-Z0-9_]+)['"]/g;
  for (const f of files) for (const m of (await readFile(join(root, f), 'utf8')).matchAll(read)) names.add((m[1] ?? m[2] ?? m[3])!);
  return names;
}

/** Seconds of a Go/compose duration (`30s`, `1m30s`, `1500ms`). */
function composeSeconds(d: string): number {
  const unit: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 1e-6 };
  const parts = [...String(d).matchAll(/(\d+(?:\.\d+)?)(h|ms|us|m|s)/g)];
  assert.ok(parts.length > 0 && parts.map((p) => p[0]).join('') === String(d), `unreadable duration ${d}`);
  return parts.reduce((n, p) => n + Number(p[1]) * unit[p[2]!]!, 0);
}

/** Seconds of a systemd time span (`40`, `40s`, `1min 30s`). */
function systemdSeconds(d: string): number {
  if (/^\d+$/.test(d)) return Number(d);
  const unit: Record<string, number> = { h: 3600, min: 60, m: 60, s: 1, sec: 1, ms: 0.001 };
  const parts = [...d.matchAll(/(\d+)\s*(h|min|ms|sec|s|m)\b/g)];
  assert.ok(parts.length > 0, `unreadable time span ${d}`);
  return parts.reduce((n, p) => n + Number(p[1]) * unit[p[2]!]!, 0);
}

/** Bytes of a Caddy size (`110MB` is 10^6-based, `100MiB` 2^20-based). */
function caddyBytes(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?$/i.exec(s);
  assert.ok(m, `unreadable size ${s}`);
  const u = (m[2] ?? 'B').toUpperCase();
  const pow = { B: 0, K: 1, M: 2, G: 3, T: 4 }[u[0] as 'B'] ?? 0;
  return Number(m[1]) * (u.includes('I') ? 1024 ** pow : 1000 ** pow);
}

const PROMQL_WORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/** The metric names and label names a PromQL expression uses, and the labels its outer `by` keeps. */
function promql(expr: string): { metrics: string[]; labels: string[]; keeps?: string[] } {
  const labels = new Set<string>();
  let e = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const m of e.matchAll(/\{([^}]*)\}/g)) for (const l of m[1]!.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)) labels.add(l[1]!);
  let keeps: string[] | undefined;
  for (const m of e.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)) {
    const names = m[1]!.split(',').map((x) => x.trim()).filter(Boolean);
    names.forEach((n) => labels.add(n));
    if (keeps === undefined && m[0].startsWith('by')) keeps = names;
  }
  e = e.replace(/\{[^}]*\}/g, ' ').replace(/\[[^\]]*\]/g, ' ').replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  e = e.replace(/(?<![\w:])\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w:])/gi, ' ');
  const metrics: string[] = [];
  for (const m of e.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    if (PROMQL_WORDS.has(m[0].toLowerCase())) continue;
    if (e.slice(m.index! + m[0].length).trimStart().startsWith('(')) continue; // a function or aggregation
    metrics.push(m[0]);
  }
  return { metrics, labels: [...labels], keeps };
}

before(async () => {
  compose = parse(await deploy('compose.yaml'), { merge: true });
  alerts = parse(await deploy('alerts.yml'));
  prometheus = parse(await deploy('prometheus.yml'));
  const lines = envLines(await deploy('cia.env.example'));
  envExample = new Map(lines.filter((l) => !l.commented).map((l) => [l.name, l.value]));
  apiEnv = new Map(envExample);
  for (const [k, v] of Object.entries(compose.services.api.environment ?? {})) apiEnv.set(k, String(v));
});

describe('deploy/: YAML files', () => {
  it('compose.yaml parses, and its api service has the env file, environment, healthcheck and stop grace period', () => {
    const api = compose.services?.api;
    assert.ok(api, 'services.api');
    for (const s of ['api', 'proxy', 'postgres', 'redis', 'prometheus']) assert.ok(compose.services[s], `services.${s}`);
    assert.equal(api.env_file, 'cia.env');
    assert.ok(api.healthcheck?.test, 'api healthcheck');
    assert.ok(api.stop_grace_period, 'api stop_grace_period');
    assert.ok(api.environment?.DATABASE_URL && api.environment?.REDIS_URL, 'several instances share PostgreSQL and Redis');
  });

  it('alerts.yml parses into rule groups, each rule an alert with an expression', () => {
    const rules = alerts.groups.flatMap((g: any) => g.rules);
    assert.ok(rules.length >= 5);
    for (const r of rules) {
      assert.equal(typeof r.alert, 'string');
      assert.equal(typeof r.expr, 'string', r.alert);
      assert.equal(typeof r.annotations?.summary, 'string', r.alert);
      if (r.for !== undefined) composeSeconds(r.for);
    }
    assert.equal(new Set(rules.map((r: any) => r.alert)).size, rules.length, 'alert names are unique');
  });

  it('prometheus.yml parses, loads the alerts where compose mounts them and scrapes the METRICS_PORT compose sets', () => {
    const mounts: string[] = compose.services.prometheus.volumes;
    const alertsMount = mounts.find((v) => v.startsWith('./alerts.yml:'))?.split(':')[1];
    assert.ok(alertsMount, 'compose mounts alerts.yml into prometheus');
    assert.deepEqual(prometheus.rule_files, [alertsMount]);
    assert.ok(mounts.some((v) => v.startsWith('./prometheus.yml:/etc/prometheus/prometheus.yml')));
    const job = prometheus.scrape_configs.find((c: any) => c.job_name === 'cia');
    assert.ok(job, 'a scrape job named cia (the alerts use job="cia")');
    assert.deepEqual(job.dns_sd_configs[0].names, ['api']);
    assert.equal(String(job.dns_sd_configs[0].port), apiEnv.get('METRICS_PORT'));
  });
});

describe('deploy/: settings', () => {
  let read: Set<string>;
  before(async () => {
    read = await variablesRead();
  });

  it('every variable cia.env.example names (set or commented out) is one the service reads', async () => {
    const named = envLines(await deploy('cia.env.example')).map((l) => l.name);
    assert.ok(named.length > 10);
    assert.deepEqual(named.filter((n) => !read.has(n)), []);
  });

  it('every variable the compose file sets is one the service reads', () => {
    const names = Object.keys(compose.services.api.environment);
    assert.ok(names.length > 5);
    assert.deepEqual(names.filter((n) => !read.has(n)), []);
  });

  it('the supervisors wait for a full drain: the listener closes within SHUTDOWN_GRACE_MS, then cut calls get up to SHUTDOWN_GRACE_MS again', async () => {
    const drain = (env: Map<string, string>) => {
      const delay = Number(env.get('SHUTDOWN_DELAY_MS') ?? 0);
      const grace = Number(env.get('SHUTDOWN_GRACE_MS') ?? SETTINGS_DOC.SHUTDOWN_GRACE_MS!.default);
      assert.ok(Number.isFinite(delay) && Number.isFinite(grace) && grace > 0);
      // server/start.ts: the delay is served within the grace (the listener is closed by then at
      // the latest), then calls cut off get up to the grace again to release their reservations.
      return (Math.max(Math.min(delay, grace), grace) + grace) / 1000;
    };
    const composeStop = composeSeconds(compose.services.api.stop_grace_period);
    assert.ok(composeStop > drain(apiEnv), `compose stop_grace_period ${composeStop} s must exceed the drain, ${drain(apiEnv)} s`);
    const unit = await deploy('cia.service');
    const stop = /^TimeoutStopSec=(.+)$/m.exec(unit)?.[1];
    assert.ok(stop, 'TimeoutStopSec');
    assert.ok(systemdSeconds(stop.trim()) > drain(envExample), `TimeoutStopSec ${stop} must exceed the drain, ${drain(envExample)} s`);
    assert.match(unit, /^KillSignal=SIGTERM$/m);
  });

  it('the proxy, the image and the compose file agree on the port, the service name and the body limit', async () => {
    const caddy = await deploy('Caddyfile');
    const dockerfile = await deploy('Dockerfile');
    const port = apiEnv.get('PORT');
    assert.equal(port, '3000');
    assert.match(caddy, new RegExp(`^\\s*port ${port}$`, 'm'));
    assert.match(caddy, /^\s*name api$/m, 'Caddy resolves the compose service `api`');
    assert.match(caddy, /^\s*health_uri \/readyz$/m);
    assert.match(caddy, /^\s*respond \/metrics 404$/m, '/metrics stays inside');
    const maxSize = /^\s*max_size (\S+)$/m.exec(caddy)?.[1];
    assert.ok(maxSize);
    const fileLimit = Number(apiEnv.get('FILE_BODY_LIMIT_BYTES') ?? 0);
    assert.ok(fileLimit > 0);
    assert.ok(caddyBytes(maxSize) >= fileLimit, `Caddy's max_size ${maxSize} lets the largest body through (${fileLimit})`);
    assert.match(dockerfile, new RegExp(`^ENV .*\\bPORT=${port}\\b`, 'm'));
    assert.match(dockerfile, new RegExp(`^EXPOSE ${port}$`, 'm'));
    // isolated-vm needs --no-node-snapshot, in the image as under systemd.
    assert.match(dockerfile, /^CMD \["node", "--no-node-snapshot",.*"dist\/server\/main\.js"\]$/m);
    assert.match(await deploy('cia.service'), /^ExecStart=\/usr\/bin\/node --no-node-snapshot .*dist\/server\/main\.js$/m);
  });
});

describe('deploy/: against the running service', () => {
  let s: TestServer;
  let exported: Set<string>;
  before(async () => {
    // The real deployment's plugins, draining for a while on shutdown (the health check test below).
    s = await startServer({ env: { SHUTDOWN_DELAY_MS: '3000', SHUTDOWN_GRACE_MS: '3000' } });
    const res = await s.call('GET', '/metrics', { key: s.adminToken });
    assert.equal(res.status, 200);
    exported = new Set();
    for (const m of res.text.matchAll(/^# TYPE (\S+) (\w+)$/gm)) {
      exported.add(m[1]!);
      if (m[2] === 'histogram' || m[2] === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) exported.add(m[1]! + suffix);
    }
  });
  after(() => s?.close());

  it('each alert names only metrics the service exports (or Prometheus adds), with labels those metrics carry', () => {
    assert.ok(exported.has('cia_calls_total') && exported.has('cia_engine_crashes') && exported.has('cia_call_duration_seconds_bucket'), [...exported].join(' '));
    // Labels of each metric, from the same class the server registers.
    const metrics = new ServiceMetrics({ engines: { started: () => [] } as never, inFlight: () => 0, bodyBytesInFlight: () => 0 });
    const labelsOf = new Map<string, string[]>();
    for (const m of metrics.registry.getMetricsAsArray() as unknown as { name: string; labelNames?: string[]; constructor: { name: string } }[]) {
      const names = m.labelNames ?? [];
      labelsOf.set(m.name, names);
      if (m.constructor.name === 'Histogram') for (const suffix of ['_bucket', '_sum', '_count']) labelsOf.set(m.name + suffix, suffix === '_bucket' ? [...names, 'le'] : names);
    }
    // Prometheus adds `up` per target, and `job` and `instance` to every series.
    const fromPrometheus = new Set(['up']);
    const targetLabels = ['job', 'instance'];
    const problems: string[] = [];
    for (const rule of alerts.groups.flatMap((g: any) => g.rules)) {
      const { metrics: used, labels, keeps } = promql(rule.expr);
      if (used.length === 0) problems.push(`${rule.alert}: no metric found in ${rule.expr}`);
      const carried = new Set(targetLabels);
      for (const name of used) {
        if (fromPrometheus.has(name)) continue;
        if (!exported.has(name)) problems.push(`${rule.alert}: ${name} is not exported`);
        for (const l of labelsOf.get(name) ?? []) carried.add(l);
      }
      for (const l of labels) if (!carried.has(l)) problems.push(`${rule.alert}: label ${l} is on none of ${used.join(', ')}`);
      // The summary's $labels must survive the expression's aggregation.
      const survives = keeps ? new Set(keeps) : carried;
      for (const m of JSON.stringify(rule.annotations ?? {}).matchAll(/\$labels\.(\w+)/g)) if (!survives.has(m[1]!)) problems.push(`${rule.alert}: $labels.${m[1]} is not in the result`);
    }
    assert.deepEqual(problems, []);
  });

  it('the PromQL reader finds metric names and labels (so the check above can fail)', () => {
    assert.deepEqual(promql('sum by (instance) (rate(cia_calls_total{status=~"5..",code!="X"}[5m])) > 0.1'), { metrics: ['cia_calls_total'], labels: ['status', 'code', 'instance'], keeps: ['instance'] });
    assert.deepEqual(promql('cia_process_open_fds / cia_process_max_fds > 1.5e9').metrics, ['cia_process_open_fds', 'cia_process_max_fds']);
    assert.deepEqual(promql('histogram_quantile(0.9, sum by (le, writer) (rate(cia_group_commit_batch_size_bucket[5m]))) > 256').metrics, ['cia_group_commit_batch_size_bucket']);
    assert.ok(!exported.has('cia_no_such_metric_total'));
  });

  it("the compose health check passes against a serving instance and fails while it drains", async () => {
    const test: string[] = compose.services.api.healthcheck.test;
    assert.equal(test[0], 'CMD');
    const scriptAt = test.indexOf('-e') + 1;
    assert.ok(test[1] === 'node' && scriptAt > 0, 'a node -e health check');
    const script = test[scriptAt]!;
    const url = /fetch\('([^']+)'\)/.exec(script)?.[1];
    assert.ok(url, script);
    const target = new URL(url);
    assert.equal(target.pathname, '/readyz');
    assert.equal(target.port, apiEnv.get('PORT'), 'the health check asks the port the instance listens on');
    // The same script, pointed at this test's instance.
    const local = script.replace(url, new URL('/readyz', s.url).href);
    const check = () => run(process.execPath, ['-e', local], { timeout: 10_000 }).then(() => 0, (err: { code?: number }) => err.code ?? -1);
    assert.equal(await check(), 0, 'healthy while serving');
    const closing = s.close();
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await check(), 1, 'unhealthy while draining (SHUTDOWN_DELAY_MS)');
    await closing;
  });
});

describe('deploy/: systemd unit', () => {
  it('passes systemd-analyze verify', async (t) => {
    const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      t.skip('systemd-analyze is not installed here: the unit is not verified');
      return;
    }
    if (!existsSync('/usr/bin/node')) {
      t.skip('no /usr/bin/node here (the unit\'s ExecStart): verify would fail for the machine, not the unit');
      return;
    }
    const dir = await mkdtemp(join(tmpdir(), 'cia-unit-'));
    try {
      const unit = join(dir, 'cia.service');
      await writeFile(unit, await deploy('cia.service'));
      const res = spawnSync('systemd-analyze', ['verify', '--man=no', unit], { encoding: 'utf8' });
      // Unknown keys and unreadable values are only warnings with status 0: any line about the unit fails too.
      const about = `${res.stdout}\n${res.stderr}`.split('\n').filter((l) => l.includes('cia.service'));
      assert.deepEqual([res.status, about], [0, []], `${res.stdout}${res.stderr}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
