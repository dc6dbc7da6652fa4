/** Most specific rule wins: exact id, provider, key `*`, deployment default, allow. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { capabilityAllowed, decide, explain } from './decide.js';

describe('policy decide', () => {
  const t = { capability: 'search_news', endpoint: 'search_a.news', provider: 'search_a' };
  it('allows by default', () => assert.equal(decide(undefined, undefined, t), true));
  it('blocks by provider', () => assert.equal(decide({ block: ['search_a'] }, {}, t), false));
  it('an exact endpoint allow beats a provider block', () => assert.equal(decide({ allow: ['search_a.news'], block: ['search_a'] }, {}, t), true));
  it('an exact endpoint block beats a provider allow', () => assert.equal(decide({ allow: ['search_a'], block: ['search_a.news'] }, {}, t), false));
  it('allow-list with * block', () => {
    assert.equal(decide({ allow: ['search_a'], block: ['*'] }, {}, t), true);
    assert.equal(decide({ allow: ['search_a'], block: ['*'] }, {}, { ...t, endpoint: 'crawler_a.scrape', provider: 'crawler_a' }), false);
  });
  it('the key beats the deployment default', () => {
    assert.equal(decide({ allow: ['search_a'] }, { block: ['*'] }, t), true);
    assert.equal(decide({}, { block: ['search_a'] }, t), false);
  });
  it('a capability block stops every provider; a capability allow opens them unless named', () => {
    assert.equal(decide({ block: ['search_news'] }, {}, t), false);
    assert.equal(decide({ allow: ['search_news'], block: ['*'] }, {}, t), true);
    assert.equal(decide({ allow: ['search_news'], block: ['search_a'] }, {}, t), false);
  });

  it('capability gate: a deployment block of a capability yields to the key\'s own allow rules, as decide does', () => {
    const dep = { block: ['search_news'] };
    const gate = (key: { allow?: string[]; block?: string[] } | undefined) =>
      capabilityAllowed(key, dep, 'search_news', decide(key, dep, t) ? 1 : 0, 1);
    assert.equal(gate(undefined), false);
    assert.equal(gate({ block: ['other'] }), false);
    assert.equal(gate({ allow: ['search_a'] }), true);
    assert.equal(gate({ allow: ['*'] }), true);
    assert.equal(gate({ allow: ['search_a.news'] }), true);
    // The key naming the capability decides either way.
    assert.equal(gate({ allow: ['search_a'], block: ['search_news'] }), false);
    // A key with an allow for an unrelated provider still gets nothing through this one.
    assert.equal(gate({ allow: ['crawler_a'] }), false);
  });

  it('explain names the rule that decided, and agrees with decide', () => {
    assert.deepEqual(explain(undefined, undefined, t), { allowed: true, by: 'default' });
    assert.deepEqual(explain({ allow: ['search_a.news'], block: ['search_a'] }, {}, t), { allowed: true, by: 'key', rule: 'search_a.news' });
    assert.deepEqual(explain({}, { block: ['*'] }, t), { allowed: false, by: 'deployment', rule: '*' });
    assert.deepEqual(explain({ allow: ['search_news'], block: ['*'] }, {}, t), { allowed: true, by: 'key', rule: 'search_news' });
    for (const key of [{ block: ['search_a'] }, { allow: ['search_a'], block: ['*'] }, {}, { block: ['search_news'] }]) {
      assert.equal(explain(key, { block: ['search_a.news'] }, t).allowed, decide(key, { block: ['search_a.news'] }, t));
    }
  });
});
