/**
 * Web capabilities (spec §4.5, §4.9, §4.10). Owned by the web lane, which refines the schemas;
 * implementations come from the service's own web plugin and the crawler providers.
 */
import { Type, defineCapability, flat, perUnit } from '../../core/sdk.js';
import { AnyObject } from './common.js';

export const scrapePage = defineCapability({
  id: 'scrape_page',
  title: 'Scrape a web page',
  summary: 'Fetch one page (optionally rendering JavaScript) and return it as markdown, HTML or a screenshot.',
  tags: ['web', 'scrape', 'markdown', 'html', 'page'],
  input: Type.Object({
    url: Type.String({ description: 'Page to fetch (http or https).', minLength: 1 }),
    format: Type.Optional(Type.Union([Type.Literal('markdown'), Type.Literal('html'), Type.Literal('screenshot')], { description: 'Output format; default markdown.' })),
    cleaned: Type.Optional(Type.Boolean({ description: 'Return the main content only.' })),
    renderJs: Type.Optional(Type.Boolean({ description: 'Render JavaScript in a browser (default true); false is faster.' })),
  }),
  output: AnyObject,
  cost: flat(10),
  messages: { url: "'url' parameter is required and must be a non-empty string." },
});

export const crawlSite = defineCapability({
  id: 'crawl_site',
  title: 'Crawl a site',
  summary: 'Follow same-site links from a start URL and return the content of each page.',
  tags: ['web', 'crawl', 'spider', 'site', 'links'],
  aliases: ['crawl'],
  input: Type.Object({
    url: Type.String({ description: 'Start URL.', minLength: 1 }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Most pages to return (default 5).' })),
    depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'Most link hops from the start URL (default 2).' })),
    format: Type.Optional(Type.Union([Type.Literal('markdown'), Type.Literal('text'), Type.Literal('raw')], { description: 'Page content format; default markdown.' })),
  }),
  output: AnyObject,
  cost: perUnit({ unit: 'pages', credits: 10, max: (i: { limit?: number }) => i.limit ?? 5, note: '10 credits per page returned' }),
  messages: { url: "'url' parameter is required and must be a non-empty string." },
});

export const screenshot = defineCapability({
  id: 'screenshot',
  title: 'Screenshot a web page',
  summary: 'Render a page in a browser and return a temporary URL to a PNG image.',
  tags: ['web', 'screenshot', 'image', 'browser', 'render'],
  input: Type.Object({
    url: Type.String({ description: 'Page to capture.', minLength: 1 }),
    fullPage: Type.Optional(Type.Boolean({ description: 'Capture the whole scrollable page.' })),
    wait: Type.Optional(Type.Integer({ minimum: 0, maximum: 30000, description: 'Extra wait after load, in milliseconds.' })),
    viewport: Type.Optional(
      Type.Object({
        width: Type.Integer({ minimum: 100, maximum: 3840, description: 'Viewport width in CSS pixels.' }),
        height: Type.Integer({ minimum: 100, maximum: 2160, description: 'Viewport height in CSS pixels.' }),
      }, { description: 'Browser viewport.' }),
    ),
  }),
  output: AnyObject,
  cost: flat(10),
});

export const extractWeb = defineCapability({
  id: 'extract_web',
  title: 'Extract structured content from a web page',
  summary: 'Extract the main content and metadata of a web page.',
  tags: ['extract', 'web', 'content'],
  aliases: ['extract'],
  input: Type.Object({ url: Type.String({ description: 'Page to extract from.', minLength: 1 }) }),
  output: AnyObject,
  cost: flat(10),
});

export default [scrapePage, crawlSite, screenshot, extractWeb];
