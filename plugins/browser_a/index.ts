/**
 * browser_a (Browserless REST, contracts §7b): `screenshot` and `scrape`. Serves the
 * `screenshot` capability when `provider: "browser_a"` is given (spec §4.10); the image is kept
 * in the service's file store and returned as a temporary URL.
 */
import { Type, UpstreamError, defineEndpoint, definePlugin, flat, implement } from '../../core/sdk.js';
import { cookieBannerCss, screenshot as screenshotCapability, pngScreenshotSettings, userUrl } from '../../core/catalogue.js';
import { browserCall, jsonOf } from './client.js';

const config = {
  baseUrl: { type: 'url', description: 'browser_a base URL (cloud region or self-hosted).', default: 'https://production-sfo.browserless.io' },
  apiKey: { type: 'secret', description: 'browser_a API token (sent as ?token=).', required: true },
} as const;

const Viewport = Type.Object({ width: Type.Integer({ minimum: 100, maximum: 3840, description: 'Viewport width in CSS pixels.' }), height: Type.Integer({ minimum: 100, maximum: 10240, description: 'Viewport height in CSS pixels.' }) }, { description: 'Viewport in CSS pixels.' });

const screenshot = defineEndpoint({
  operation: 'screenshot',
  title: 'browser_a screenshot',
  summary: 'Capture a page in a hosted Chrome; the PNG is stored and returned as a temporary URL.',
  input: Type.Object({
    url: Type.String({ description: 'Page to capture.', minLength: 1 }),
    fullPage: Type.Optional(Type.Boolean({ description: 'Whole scrollable page (default false).' })),
    viewport: Type.Optional(Viewport),
    wait: Type.Optional(Type.Integer({ minimum: 0, maximum: 30000, description: 'Extra wait after load, ms (waitForTimeout).' })),
    clip: Type.Optional(
      Type.Object(
        {
          x: Type.Integer({ minimum: 0, description: 'Left edge, CSS pixels.' }),
          y: Type.Integer({ minimum: 0, description: 'Top edge, CSS pixels.' }),
          width: Type.Integer({ minimum: 1, description: 'Width, CSS pixels.' }),
          height: Type.Integer({ minimum: 1, description: 'Height, CSS pixels.' }),
        },
        { description: 'Capture only this rectangle of the page (options.clip).' },
      ),
    ),
    scrollPage: Type.Optional(Type.Boolean({ description: 'Scroll through the page before the capture so lazy content loads (scrollPage).' })),
    hideCss: Type.Optional(Type.String({ description: 'CSS added to the page before the capture (addStyleTag), e.g. to hide cookie banners.', maxLength: 100_000 })),
  }),
  output: Type.Object({
    url: Type.String({ description: 'Temporary URL of the image.' }),
    contentType: Type.String({ description: 'Image type.' }),
    expiresAt: Type.String({ description: 'When the URL stops working.' }),
    size: Type.Integer({ description: 'Image size in bytes.' }),
  }),
  cost: flat(10),
  examples: [{ title: 'Full-page PNG', input: { url: 'https://example.org', fullPage: true } }],
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  async run(input, ctx) {
    const body: Record<string, unknown> = { url: input.url, options: { type: 'png', fullPage: input.fullPage ?? false }, gotoOptions: { waitUntil: 'load' } };
    if (input.viewport) body.viewport = input.viewport;
    if (input.wait) body.waitForTimeout = input.wait;
    // contracts §7b: Puppeteer's clip, Browserless's own scrollPage, and a style tag for banners.
    if (input.clip) (body.options as Record<string, unknown>).clip = input.clip;
    if (input.scrollPage) body.scrollPage = true;
    if (input.hideCss) body.addStyleTag = [{ content: input.hideCss }];
    const res = await browserCall(ctx, 'screenshot', body, 60_000);
    const png = res.body;
    if (png.byteLength < 8 || Buffer.from(png.subarray(1, 4)).toString('latin1') !== 'PNG') {
      throw new UpstreamError('Received invalid data structure from browser_a service.');
    }
    const file = await ctx.engines.files.put(png, { contentType: 'image/png', extension: 'png' });
    ctx.usage.add('output_bytes', png.byteLength);
    return { url: file.url, contentType: 'image/png', expiresAt: file.expiresAt.toISOString(), size: png.byteLength };
  },
});

const Result = Type.Object(
  {
    html: Type.String({ description: 'Outer HTML of the element.' }),
    text: Type.String({ description: 'Text content of the element.' }),
    width: Type.Optional(Type.Number({ description: 'Rendered width, CSS pixels.' })),
    height: Type.Optional(Type.Number({ description: 'Rendered height, CSS pixels.' })),
    top: Type.Optional(Type.Number({ description: 'Distance from the top of the page, CSS pixels.' })),
    left: Type.Optional(Type.Number({ description: 'Distance from the left of the page, CSS pixels.' })),
    attributes: Type.Optional(Type.Array(Type.Object({ name: Type.String({ description: 'Attribute name.' }), value: Type.String({ description: 'Attribute value.' }) }), { description: 'Attributes of the element.' })),
  },
  { additionalProperties: true },
);

const scrape = defineEndpoint({
  operation: 'scrape',
  title: 'browser_a scrape',
  summary: 'Render a page in a hosted Chrome and return the HTML and text of the elements matching CSS selectors.',
  input: Type.Object({
    url: Type.String({ description: 'Page to scrape.', minLength: 1 }),
    elements: Type.Optional(Type.Array(Type.Object({ selector: Type.String({ minLength: 1, description: 'CSS selector.' }), timeout: Type.Optional(Type.Integer({ minimum: 0, description: 'How long to wait for the selector to appear, ms.' })) }), { minItems: 1, maxItems: 50, description: 'Selectors to extract (default: body).' })),
    wait: Type.Optional(Type.Integer({ minimum: 0, maximum: 30000, description: 'Extra wait after load, ms.' })),
  }),
  output: Type.Object({ data: Type.Array(Type.Object({ selector: Type.String({ description: 'The CSS selector.' }), results: Type.Array(Result, { description: 'Elements matching it.' }) }), { description: 'Matches per selector.' }) }),
  cost: flat(10),
  examples: [{ title: 'Headings of a page', input: { url: 'https://example.org', elements: [{ selector: 'h1' }, { selector: 'h2' }] } }],
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  async run(input, ctx) {
    const body: Record<string, unknown> = { url: input.url, elements: input.elements ?? [{ selector: 'body' }], gotoOptions: { waitUntil: 'load' } };
    if (input.wait) body.waitForTimeout = input.wait;
    const out = jsonOf<{ data?: { selector: string; results: unknown[] }[] | null }>(ctx, await browserCall(ctx, 'scrape', body, 60_000));
    ctx.setNative(out);
    if (out.data !== null && out.data !== undefined && !Array.isArray(out.data)) throw new UpstreamError('Received invalid data structure from browser_a service.');
    return { data: (out.data ?? []) as { selector: string; results: { html: string; text: string }[] }[] };
  },
});

export default definePlugin({
  id: 'browser_a',
  apiVersion: 1,
  title: 'browser_a (Browserless-compatible REST API)',
  summary: 'Hosted headless Chrome: screenshots and selector scraping.',
  tags: ['browser', 'screenshot', 'scrape', 'chrome', 'provider'],
  config,
  endpoints: [screenshot, scrape],
  implements: [
    implement(screenshotCapability, screenshot, {
      mapInput: (i) => ({
        url: userUrl(i.url),
        fullPage: i.fullPage,
        ...pngScreenshotSettings(i, 'browser_a'),
        clip: i.clipRectangle,
        scrollPage: i.autoScroll,
        // blockCookieBanners (default true): the same selectors the service's own Chromium hides.
        hideCss: i.blockCookieBanners === false ? undefined : cookieBannerCss(),
      }),
      mapOutput: (o) => ({ screenshotUrl: o.url, url: o.url, contentType: o.contentType, expiresAt: o.expiresAt }),
    }),
  ],
});
