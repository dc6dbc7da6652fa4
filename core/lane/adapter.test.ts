/** The lane adapter: target resolution per lane, what the call record is told, the answer's fields. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LaneAdapter } from './adapter.js';
import { laneTables } from '../policy/visibility.js';
import type { ExecuteRequest, ExecuteResult } from '../execution/executor.js';
import type { Registry } from '../registry/registry.js';
import type { RegisteredCapability, ResolvedTarget } from '../registry/types.js';
import type { KeyRecord } from '../keys/types.js';
import type { LaneCall } from './types.js';

const pub = { id: 'search_news', def: { aliases: ['news'] }, providers: [] } as unknown as RegisteredCapability;
const legacy = { id: 'run_js_code', def: { visibility: 'legacy' }, providers: [] } as unknown as RegisteredCapability;
const registry = {
  resolve(type: string, id: string): ResolvedTarget | undefined {
    if (type !== 'capability') return undefined;
    const capability = id === 'search_news' || id === 'news' ? pub : id === 'run_js_code' ? legacy : undefined;
    return capability ? { type: 'capability', capability } : undefined;
  },
} as unknown as Registry;

/** An executor that records its request and answers `result`, telling about `attempts` first. */
function executor(result: Partial<ExecuteResult>, attempts: string[] = []) {
  const seen: ExecuteRequest[] = [];
  return {
    seen,
    async execute(req: ExecuteRequest): Promise<ExecuteResult> {
      seen.push(req);
      for (const p of attempts) req.onAttempt?.(p);
      return { data: { ok: true }, provider: 'search_a', credits: 3, units: {}, fallbacks: [], ...result };
    },
  };
}

function recorder() {
  const events: string[] = [];
  return {
    events,
    target: (type: string, id: string) => void events.push(`target ${type} ${id}`),
    attempt: (p: string) => void events.push(`attempt ${p}`),
    served: (r: { provider: string | null; credits: number }) => void events.push(`served ${r.provider} ${r.credits}`),
  };
}

const base = (over: Partial<LaneCall> = {}): LaneCall => ({
  requestId: 'req_1',
  key: { id: 'key_1' } as KeyRecord,
  type: 'capability',
  id: 'news',
  input: { query: 'x' },
  signal: new AbortController().signal,
  log: console as never,
  ...over,
});

describe('LaneAdapter', () => {
  it('resolves an alias, tells the record as it goes, and answers with the canonical id and served fields', async () => {
    const ex = executor({ fallbacks: [] }, ['search_b', 'search_a']);
    const record = recorder();
    const answer = await new LaneAdapter('v2', registry, ex).run(base({ record, provider: 'search_a' }));
    assert.deepEqual(record.events, ['target capability news', 'target capability search_news', 'attempt search_b', 'attempt search_a', 'served search_a 3']);
    assert.equal(ex.seen[0]!.provider, 'search_a');
    assert.equal(ex.seen[0]!.target.type === 'capability' && ex.seen[0]!.target.capability, pub);
    assert.deepEqual(answer, { type: 'capability', id: 'search_news', data: { ok: true }, served: { provider: 'search_a', credits: 3 }, units: {} });
  });

  it('lists fallbacks only when there were any, and the native payload (null when none) only when asked', async () => {
    const fallbacks = [{ provider: 'search_b', code: 'UPSTREAM_ERROR' }];
    const a = await new LaneAdapter('v2', registry, executor({ fallbacks })).run(base({ includeNative: true }));
    assert.deepEqual(a.served, { provider: 'search_a', credits: 3, fallbacks });
    assert.equal(a.native, null);
    const b = await new LaneAdapter('v2', registry, executor({ native: { raw: 1 } })).run(base());
    assert.equal('native' in b, false);
  });

  it("answers each lane's own error for a target it cannot run", async () => {
    const ex = executor({});
    await assert.rejects(new LaneAdapter('v2', registry, ex).run(base({ id: 'nothing' })), { code: 'NOT_FOUND', message: 'Unknown capability: nothing' });
    await assert.rejects(new LaneAdapter('v2', registry, ex).run(base({ id: 'run_js_code' })), { code: 'NOT_FOUND', message: 'Unknown capability: run_js_code' });
    await assert.rejects(new LaneAdapter('v1', registry, ex, laneTables([])).run(base({ id: 'nothing', resolved: undefined })), { code: 'NOT_CONFIGURED' });
    await assert.rejects(new LaneAdapter('mcp', registry, ex).run(base({ id: 'nothing', resolved: undefined })), { code: 'NOT_FOUND' });
    assert.equal(ex.seen.length, 0, 'the executor is never reached');
    await new LaneAdapter('mcp', registry, ex).run(base({ id: 'run_js_code' }));
    await new LaneAdapter('jobs', registry, ex).run(base({ id: 'run_js_code' }));
    assert.equal(ex.seen.length, 2, 'MCP and the jobs worker run the v1-only jobs');
  });

  it('calls `execute` as it is at call time (an observer may wrap it after boot)', async () => {
    const ex = executor({});
    const adapter = new LaneAdapter('v2', registry, ex);
    let wrapped = 0;
    const inner = ex.execute.bind(ex);
    ex.execute = async (req) => {
      wrapped += 1;
      return inner(req);
    };
    await adapter.run(base());
    assert.equal(wrapped, 1);
  });
});
