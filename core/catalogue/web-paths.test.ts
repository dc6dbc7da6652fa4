/**
 * The path-pattern check of crawl_site and map_site (issue 25): ordinary path filters pass, the
 * shapes that backtrack catastrophically, back-references and broken patterns are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPathPattern } from './web-paths.js';

test('ordinary path patterns pass', () => {
  for (const p of ['^/blog/', '^/docs/(api|guide)/', '\\.html$', '^/p/[0-9]+$', '^/(en|de)?/?news/.*', '/a{2,3}/', '^/x(/y)?$', '[(+*]', '\\(a+\\)+']) {
    assert.equal(checkPathPattern('includePaths', p), undefined, p);
  }
});

test('catastrophic shapes, back-references and invalid patterns are refused', () => {
  for (const p of ['(a+)+$', '(a*)*b', '(a|aa)+$', '((ab)*)+', '(x+x+)+y', '(a)\\1', '(?<n>a)\\k<n>', 'a*a*a*a*a*a*a*a*a*b', '(.*a){12}']) {
    assert.match(checkPathPattern('includePaths', p) ?? '', /may take too long to match/, p);
  }
  assert.match(checkPathPattern('excludePaths', '(unclosed') ?? '', /^'excludePaths' contains an invalid regular expression/);
});
