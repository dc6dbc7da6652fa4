/** Helpers of the job tests: poll a job until it gets somewhere. */
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls a job until `done` says so (gives up after about a minute, so a hang fails instead of blocking). */
export async function waitJob(s: TestServer, key: string, id: string, done: (job: any) => boolean = (j) => ['completed', 'failed', 'cancelled'].includes(j.status)): Promise<any> {
  for (let i = 0; i < 1200; i++) {
    const r = await s.call('GET', `/api/v2/jobs/${id}?skipData=true`, { key });
    assert.equal(r.status, 200, r.text);
    if (done(r.json.data)) return r.json.data;
    await sleep(50);
  }
  throw new Error(`job ${id} did not get there`);
}
