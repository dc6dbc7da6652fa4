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

/** A module exporting `add(a, b)`, as the bytes of its binary format. */
const ADD_WASM = '[0,97,115,109,1,0,0,0,1,7,1,96,2,127,127,1,127,3,2,1,0,7,7,1,3,97,100,100,0,0,10,9,1,7,0,32,0,32,1,106,11]';

describe('the asynchronous WebAssembly API (issue 18, item 9)', () => {
  it('settles: instantiate, compile and the streaming forms answer like the synchronous API', async () => {
    const code = `const bytes = new Uint8Array(${ADD_WASM});
const { module, instance } = await WebAssembly.instantiate(bytes);
console.log(instance.exports.add(2, 3), module instanceof WebAssembly.Module);
const compiled = await WebAssembly.compile(bytes);
const again = await WebAssembly.instantiate(compiled);
console.log(again instanceof WebAssembly.Instance, again.exports.add(40, 2));
const streamed = await WebAssembly.instantiateStreaming(new Response(bytes, { headers: { "content-type": "application/wasm" } }));
console.log(streamed.instance.exports.add(1, 1));
console.log(await WebAssembly.compileStreaming(new Response(bytes)).catch((e) => e.name + ": " + e.message));`;
    const logs = ok(await lane.js({ code }));
    assert.deepEqual(logs.stdout, ['5 true', 'true 42', '2', "TypeError: WebAssembly.compileStreaming(): Incorrect response MIME type. Expected 'application/wasm'."]);
  });

  it('rejects bad bytes with a CompileError the code can catch, or as the run error', async () => {
    const caught = ok(await lane.js({ code: 'try { await WebAssembly.instantiate(new Uint8Array([1, 2, 3])) } catch (e) { console.log(e instanceof WebAssembly.CompileError) }' }));
    assert.deepEqual(caught.stdout, ['true']);
    const e = failed(await lane.js({ code: 'await WebAssembly.compile(new Uint8Array([0, 97, 115, 109]))' }));
    assert.equal(e.name, 'CompileError');
  });
});

describe('JavaScript workers shared fairly between keys (issue 18, item 9)', () => {
  // The pool tells keys apart by `ctx.caller` (the calling key's id, set by the executor); the
  // pool's own fairness is tested with owners in core/engines/sandbox/js/pool.test.ts.
  it('one key sleeping in every worker does not make another key wait for it', async () => {
    const other = await lane.server.createKey({ credits: 10_000, rateLimitPerMinute: 1000 });
    const nap = 'await new Promise((r) => setTimeout(r, 6000)); console.log("slept")';
    const sleeping = [lane.js({ code: nap }), lane.js({ code: nap })];
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    const res = await lane.server.call('POST', '/api/v1/run-js-code', { key: other.key, body: { code: 'console.log("other key")' } });
    const took = Date.now() - started;
    assert.deepEqual(ok(res).stdout, ['other key']);
    assert.ok(took < 4000, `the other key waited ${took} ms for the first key's sleeping runs`);
    for (const r of await Promise.all(sleeping)) assert.deepEqual(ok(r).stdout, ['slept']);
  });
});
