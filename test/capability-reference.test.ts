/**
 * The generated capability reference (`docs/capabilities.md`, issue 29) is current and covers the
 * whole catalogue: a plugin author reads schemas, prices and providers there instead of in core/.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { catalogue } from '../core/catalogue.js';
import { generatedReference } from '../scripts/readme-tables.js';

const root = join(import.meta.dirname, '..');
const { current, wanted } = await generatedReference(root);

it('docs/capabilities.md is current: `npm run readme` writes it', () => {
  assert.ok(current === wanted, 'docs/capabilities.md is stale: run `npm run readme` and commit the result.');
});

it('has a section per capability of the catalogue, with its price, providers, input and output', () => {
  for (const cap of catalogue) {
    const at = current.indexOf(`\n## \`${cap.id}\`\n`);
    assert.ok(at >= 0, `no section for ${cap.id}`);
    const section = current.slice(at + 1).split('\n## ')[0]!;
    for (const part of ['**Price:**', '**Providers, in the order they are tried:**', '**Input**', '**Output**']) assert.ok(section.includes(part), `${cap.id}: ${part}`);
    assert.ok(section.includes(cap.visibility === 'legacy' ? 'v1 only' : 'POST /api/v2/run'), `${cap.id}: where it is reached`);
  }
});

it('lists providers in the order plugins.config.ts tries them, and input fields with their types', () => {
  assert.match(current, /\| \[`crawl_site`\]\(#crawl_site\) \| v2 \+ v1 \| [^|]+ \| `crawler_a`, `spider_a`, `web` \|/);
  assert.match(current, /\| `url` \| string \(1–8192 chars\) \| yes \| Page to fetch/);
});

it("names each capability's catalogue export and the usage units its price reads", () => {
  const section = (id: string) => current.slice(current.indexOf(`\n## \`${id}\`\n`) + 1).split('\n## ')[0]!;
  assert.match(section('answer_question'), /\*\*Catalogue export:\*\* `answerQuestion` /);
  assert.match(section('answer_question'), /\*\*Units a handler reports:\*\* `ctx\.usage\.add\('tokens', n\)`/);
  // A hand-written rule's units are found too, and a flat price reads none.
  assert.match(section('engine_search'), /\*\*Units a handler reports:\*\* `ctx\.usage\.add\('scraped_pages', n\)`/);
  assert.match(section('search_news'), /\*\*Units a handler reports:\*\* none/);
  assert.match(section('answer_question'), /\| `recency` \| "hour" \\\| "day" \\\| "week" \\\| "month" \\\| "year" \|/);
});
