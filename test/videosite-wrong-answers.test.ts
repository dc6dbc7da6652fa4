/**
 * Wrong answers of the video-site lane (issue 28) through the real server: an age-restricted
 * video in the site's current wording ("Sign in to confirm your age") is a free 404 naming the
 * restriction, not the bot block's 503; the bot check still is the 503; a refused first page of
 * comments (no token sent) does not blame a continuation token.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { pluginsConfig } from './helpers/plugins.js';
import { startVideositeFake, type VideositeFake } from '../plugins/videosite_native/fake.js';

const watch = (id: string) => `https://www.youtube.com/watch?v=${id}`;
const subreason = (text: string) => ({ playerErrorMessageRenderer: { subreason: { runs: [{ text }] } } });
const player = (status: string, reason: string, sub?: string) => ({ player: { playabilityStatus: { status, reason, ...(sub ? { errorScreen: subreason(sub) } : {}) } } });

describe('video-site wrong answers', () => {
  let fake: VideositeFake;
  let s: TestServer;
  let key: string;

  before(async () => {
    fake = await startVideositeFake({
      videos: {
        AgeSignIn01: player('LOGIN_REQUIRED', 'Sign in to confirm your age', 'This video may be inappropriate for some users.'),
        AgeCheck001: player('AGE_CHECK_REQUIRED', 'This video may be inappropriate for some users.'),
        AgeUnplay01: player('UNPLAYABLE', 'Age-restricted video (based on Community Guidelines)'),
        BotWording1: player('LOGIN_REQUIRED', 'Sign in to confirm you’re not a bot', 'This helps protect our community. Learn more'),
      },
    });
    s = await startServer({ env: fake.env, serviceConfig: pluginsConfig(['videosite_native']) });
    ({ key } = await s.createKey({ credits: 1000 }));
  });
  after(async () => {
    await s?.close();
    await fake?.close();
  });

  const balance = async () => (await s.call('GET', '/api/v2/balance', { key })).json.data.credits as number;

  it('every wording of an age restriction is a free 404 naming it; the bot check stays a 503', async () => {
    const start = await balance();
    for (const id of ['AgeSignIn01', 'AgeCheck001', 'AgeUnplay01']) {
      for (const [path, body] of [
        ['/api/v1/get-videosite-transcript', { videoUrl: watch(id) }],
        ['/api/v1/videosite/video', { url: watch(id) }],
      ] as const) {
        const r = await s.call('POST', path, { key, body });
        assert.deepEqual([r.status, r.json.error], [404, `Video is age-restricted and cannot be read without signing in: ${id}.`], `${id} ${path}`);
      }
    }
    const bot = await s.call('POST', '/api/v1/get-videosite-transcript', { key, body: { videoUrl: watch('BotWording1') } });
    assert.deepEqual([bot.status, bot.json.error], [503, 'Rate limit exceeded. Please try again later.']);
    assert.equal(await balance(), start);
  });

  it('a refused first page of comments does not blame a continuation token; a refused token does', async () => {
    fake.failWith(400);
    try {
      const first = await s.call('POST', '/api/v1/videosite/video/comments', { key, body: { url: watch('GJLlxj_dtq8') } });
      assert.deepEqual([first.status, first.json.error], [404, 'Comments not found or unavailable for video: GJLlxj_dtq8.']);
      const next = await s.call('POST', '/api/v1/videosite/video/comments', { key, body: { url: watch('GJLlxj_dtq8'), continuationToken: 'Eg0SC0dKTGx4al9kdHE4' } });
      assert.deepEqual([next.status, next.json.error], [400, 'Invalid continuationToken: it does not belong to this video or has expired.']);
    } finally {
      fake.reset();
    }
  });
});
