/**
 * Code lane findings of the hardening audit (issue 18), black-box through the real server:
 * text no process can be handed answers 400 and leaks nothing (finding 1), the asynchronous
 * WebAssembly API settles, and one key's sleeping runs do not hold every JavaScript worker while
 * another key waits (item 9).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { failed, ok, startCodeLane, type CodeLane } from './helpers/code-lane.js';

let lane: CodeLane;

before(async () => {
  // Two JavaScript workers, as on a 2-core host: the smallest pool one key could fill.
  lane = await startCodeLane('hardening-secret-41d2', { SANDBOX_JS_WORKERS: '2' });
});

after(() => lane?.close());

/** Open file descriptors of this process, which hosts the server under test. */
const openFds = () => readdirSync('/proc/self/fd').length;

describe('NUL characters in code or commands (issue 18, finding 1)', () => {
  const cases = [
    { field: 'commands', body: { code: 'print(1)', commands: 'true\u0000' } },
    { field: 'commands', body: { code: 'console.log(1)', commands: 'echo a\u0000b' } },
    { field: 'code', body: { code: 'print(1)\u0000' } },
  ] as const;

  it('answer 400 with a clear message on both routes, charge nothing and leave no descriptor open', async () => {
    const credits = await lane.credits();
    // One call first, so whatever the route opens once (not per call) is open before counting.
    await lane.py(cases[0].body);
    const before = openFds();
    for (let i = 0; i < 20; i++) {
      const { field, body } = cases[i % cases.length]!;
      const res = await (i % 2 === 0 ? lane.py(body) : lane.js(body));
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.json, { error: `${field} must not contain NUL characters (\\u0000): they cannot be passed to a process.` });
    }
    // Sockets closed by the server are released on the next turns of the event loop.
    await new Promise((r) => setTimeout(r, 200));
    const after = openFds();
    // A leak was one listening socket per call (20 here); keep-alive sockets may add one or two.
    assert.ok(after - before <= 3, `open fds went from ${before} to ${after}`);
    assert.equal(await lane.credits(), credits);
  });

  it('other control characters still reach the commands and the code', async () => {
    // A literal SOH in the shell command and a literal BEL in the Python source.
    const logs = ok(await lane.py({ commands: "printf 'a\\tb\u0001' > t.txt", code: 'print(repr(open("t.txt").read()), len("\u0007"))' }));
    assert.deepEqual(logs.stdout, ["'a\\tb\\x01' 1"]);
  });
});
