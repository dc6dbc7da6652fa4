/**
 * Unit tests of the MCP lane's small parts: cost sentences (issue 17 §2, spec §8.1), the running
 * call table that carries cancellations across requests, the tools-mode setting and the stdio
 * bridge's settings.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeCost } from '../cost-text.js';
import { RunningCalls } from './cancel.js';
import { toolsModeSetting } from './routes.js';
import { bridgeSettings } from './bridge.js';
import { originAllowed, originSetting } from './origin.js';
import { flat, perOutputMb, perUnit } from '../../core/credits/cost.js';

describe('describeCost', () => {
  it('says the price of each kind of cost rule in words', () => {
    assert.equal(describeCost(flat(10).describe), '10 credits per call.');
    assert.equal(describeCost(flat(1).describe), '1 credit per call.');
    assert.equal(describeCost(flat(0).describe), 'free.');
    assert.equal(describeCost(perUnit({ unit: 'pages', credits: 10, max: () => 5 }).describe), '10 credits per page returned.');
    assert.equal(describeCost(perUnit({ unit: 'reviews', credits: 50, per: 10, max: () => 5 }).describe), '50 credits per started 10 reviews returned.');
    assert.equal(describeCost(perUnit({ unit: 'reviews', credits: 50, per: 10, max: () => 5, note: '50 credits per 10 reviews returned, rounded up' }).describe), '50 credits per 10 reviews returned, rounded up.');
    assert.equal(describeCost(perOutputMb({ credits: 50, perMb: 100, maxMb: 100 }).describe), '50 credits per started 100 MB of output (any output costs at least one block; up to 100 MB).');
    assert.equal(describeCost({ kind: 'custom', note: '100 + 10 per image.' }), '100 + 10 per image.');
  });
});

describe('RunningCalls', () => {
  it('cancels only the call of the same key, session and request id, once registered and until removed', () => {
    const calls = new RunningCalls();
    const got: (string | undefined)[] = [];
    const remove = calls.add({ keyId: 'k1', sessionId: 's1' }, 3, (reason) => got.push(reason));
    assert.equal(calls.cancel({ keyId: 'k2', sessionId: 's1' }, 3, 'other key'), false);
    assert.equal(calls.cancel({ keyId: 'k1', sessionId: 's2' }, 3, 'other session'), false);
    assert.equal(calls.cancel({ keyId: 'k1', sessionId: 's1' }, '3', 'string id'), false);
    assert.equal(calls.cancel({ keyId: 'k1', sessionId: 's1' }, 3, 'stop'), true);
    assert.deepEqual(got, ['stop']);
    remove();
    assert.equal(calls.size, 0);
    assert.equal(calls.cancel({ keyId: 'k1', sessionId: 's1' }, 3, 'late'), false);
  });
});

describe('settings', () => {
  it('MCP_TOOLS_MODE is all (default) or discovery; anything else stops boot naming the variable', () => {
    assert.equal(toolsModeSetting(undefined), 'all');
    assert.equal(toolsModeSetting('discovery'), 'discovery');
    assert.throws(() => toolsModeSetting('tools'), /MCP_TOOLS_MODE must be 'all' or 'discovery'/);
  });

  it('the bridge needs BASE_URL and API_KEY and forwards the tools mode as the query parameter', () => {
    assert.throws(() => bridgeSettings({ API_KEY: 'k' }), /BASE_URL is required/);
    assert.throws(() => bridgeSettings({ BASE_URL: 'http://x' }), /API_KEY is required/);
    assert.throws(() => bridgeSettings({ BASE_URL: 'not a url', API_KEY: 'k' }), /BASE_URL is not a URL/);
    assert.throws(() => bridgeSettings({ BASE_URL: 'http://x', API_KEY: 'k', MCP_TOOLS_MODE: 'some' }), /MCP_TOOLS_MODE/);
    assert.equal(bridgeSettings({ BASE_URL: 'http://127.0.0.1:3000/', API_KEY: 'k' }).url.href, 'http://127.0.0.1:3000/mcp');
    assert.equal(bridgeSettings({ BASE_URL: 'https://api.example.com/base', API_KEY: 'k', MCP_TOOLS_MODE: 'discovery' }).url.href, 'https://api.example.com/base/mcp?tools=discovery');
  });
});

describe('Origin check', () => {
  it('lets clients without Origin, loopback pages and listed origins through; refuses the rest, whatever Host says', () => {
    const none = originSetting(undefined);
    assert.equal(originAllowed(none, undefined), true);
    assert.equal(originAllowed(none, 'http://localhost:5173'), true);
    assert.equal(originAllowed(none, 'http://127.0.0.1:3000'), true);
    assert.equal(originAllowed(none, 'http://[::1]:3000'), true);
    // A rebinding page: its own name as Origin (the Host header would say the same); not loopback, not listed.
    assert.equal(originAllowed(none, 'http://api.local:3000'), false);
    assert.equal(originAllowed(none, 'http://localhost.evil.example'), false);
    assert.equal(originAllowed(none, 'http://evil.example'), false);
    assert.equal(originAllowed(none, 'null'), false);
    assert.equal(originAllowed(none, 'file://localhost'), false);
    const listed = originSetting('https://app.example.com, https://tools.example.org/');
    assert.equal(originAllowed(listed, 'https://app.example.com'), true);
    assert.equal(originAllowed(listed, 'https://tools.example.org'), true);
    assert.equal(originAllowed(listed, 'https://app.example.com.evil.example'), false);
    assert.equal(originAllowed(originSetting('*'), 'http://anything.example'), true);
    assert.throws(() => originSetting('not an origin'), /MCP_ALLOWED_ORIGINS/);
  });
});
