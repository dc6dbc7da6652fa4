/**
 * Seeds a PostgreSQL database with usage rows for the console's bench and screenshots: `n` rows
 * spread over the last `days` days (more in recent hours, as real traffic after a launch), over
 * the given keys, lanes, targets and providers, mostly successes, with latencies and credits.
 * The database generates them (generate_series), so a million rows take seconds. They are written
 * in time order, as the service appends them, so recent rows sit together on disk as in production.
 */
import pg from 'pg';

/** Options of a seeding. */
export interface SeedOptions {
  n: number;
  days: number;
  keyIds: string[];
}

/** Inserts the rows, then refreshes the planner's statistics. */
export async function seedUsage(databaseUrl: string, o: SeedOptions): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query(
      `INSERT INTO usage_log (request_id, key_id, lane, object_type, object_id, provider, status, code, credits, latency_ms, request_source, created_at)
       SELECT 'req_seed_' || g,
              ($1::text[])[1 + (g % array_length($1::text[], 1))],
              (ARRAY['v2','v2','v1','v1','v1','mcp'])[1 + (g % 6)],
              'capability',
              t.target,
              t.provider,
              CASE WHEN g % 41 = 0 THEN 502 WHEN g % 29 = 0 THEN 400 WHEN g % 97 = 0 THEN 429 ELSE 200 END,
              CASE WHEN g % 41 = 0 THEN 'UPSTREAM_ERROR' WHEN g % 29 = 0 THEN 'INVALID_INPUT' WHEN g % 97 = 0 THEN 'RATE_LIMITED' ELSE NULL END,
              CASE WHEN g % 41 = 0 OR g % 29 = 0 OR g % 97 = 0 THEN 0 ELSE t.credits END,
              (t.base + (random() * t.base * 2))::int,
              'API',
              ts
         FROM (SELECT g, now() - make_interval(secs => $2::float8 * 86400 * power(random(), 1.6)) AS ts FROM generate_series(1, $3::int) AS g) AS s
         CROSS JOIN LATERAL (
           SELECT * FROM (VALUES
             ('scrape_page', 'web', 10, 120), ('search_web', 'search_a', 5, 300), ('screenshot', 'web', 20, 900),
             ('crawl_site', 'crawler_a', 50, 2500), ('convert_to_pdf', 'documents', 50, 1500), ('extract_document', 'extractor_a', 30, 1800)
           ) AS v(target, provider, credits, base)
           OFFSET (g % 6) LIMIT 1
         ) AS t
        ORDER BY ts`,
      [o.keyIds, o.days, o.n],
    );
    await c.query('ANALYZE usage_log');
  } finally {
    await c.end();
  }
}
