/**
 * extract-web (issue 15, `POST /api/v1/extract`): the page through the service's own scrape lane
 * (`scrape_page`: rendered, main content, markdown) and its screenshot (`screenshot`), both with
 * `ctx.call` under the caller's key policy; the vision model then fills `schema` (JSON Schema
 * structured output) or answers `prompt` as a JSON object. 250 credits.
 */
import { type RunContext, type Static } from '../../core/sdk.js';
import { extractSchemaOf, type ExtractWebInput } from '../../core/catalogue.js';
import { answer } from './answer.js';
import { lane, report } from './lane.js';

type Input = Static<typeof ExtractWebInput>;
type Page = { title: string; url: string; content: string };
type Shot = { url: string; contentType: string };

/** The screenshot's bytes when it is one of our own stored files (a provider's URL is not fetched again). */
async function ownFile(ctx: RunContext<any, any>, url: string): Promise<Buffer | undefined> {
  try {
    const u = new URL(url);
    const id = /\/files\/([^/]+)$/.exec(u.pathname)?.[1];
    if (!id) return undefined;
    const opened = await ctx.engines.files.open(id, u.searchParams.get('expires') ?? undefined, u.searchParams.get('sig') ?? undefined);
    return await opened.bytes();
  } catch {
    return undefined;
  }
}

/** Runs one extract-web call. */
export async function extractWebData(input: Input, ctx: RunContext<any, any>) {
  const l = lane(ctx);
  const url = input.url.trim();
  const [page, shot] = await Promise.all([
    ctx.call<Page>('scrape_page', { url, format: 'markdown', cleaned: true }),
    // The screenshot is a convenience for the caller and context for the model: its failure is logged, not fatal.
    ctx.call<Shot>('screenshot', { url }).catch((err: unknown) => {
      ctx.log.warn({ err }, 'extract_web: screenshot failed; answering from the page text');
      return undefined;
    }),
  ]);
  const bytes = shot ? await ownFile(ctx, shot.url) : undefined;
  const images = bytes ? [{ url: `data:${shot!.contentType || 'image/png'};base64,${bytes.toString('base64')}`, caption: 'Screenshot of the page:' }] : [];
  const prompt = input.prompt ?? 'Extract the data described by the JSON Schema from the page.';
  // A shorthand map (`{"title": "string"}`) becomes its JSON Schema; validation refused any other form.
  const schema = input.schema === undefined ? undefined : extractSchemaOf(input.schema);
  const a = await answer(
    l.model,
    { prompt, material: `URL: ${page.url}\nTitle: ${page.title}\n\n${page.content}`, kind: 'web page', images, json: true, schema },
    l.settings,
  );
  const results = a.results && typeof a.results === 'object' && !Array.isArray(a.results) ? (a.results as Record<string, unknown>) : { result: a.results };
  report(l, a, { page: { url: page.url, title: page.title }, screenshot: Boolean(shot) });
  return { results, screenshotUrl: shot?.url ?? null };
}
