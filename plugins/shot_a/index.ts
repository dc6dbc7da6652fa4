/**
 * shot_a (ScreenshotOne, contracts §7a): one endpoint, `screenshot`, serving the `screenshot`
 * capability when `provider: "shot_a"` is given (spec §4.10). The image is kept in the service's
 * file store and returned as a temporary URL, like the service's own screenshots.
 */
import { Type, UnsupportedOptionError, defineEndpoint, definePlugin, flat, implement } from '../../core/sdk.js';
import { screenshot as screenshotCapability, pngScreenshotSettings, userUrl } from '../../core/catalogue.js';
import { take, type TakeOptions } from './client.js';

const config = {
  baseUrl: { type: 'url', description: 'shot_a API base URL.', default: 'https://api.screenshotone.com' },
  apiKey: { type: 'secret', description: 'shot_a access key (sent as X-Access-Key).', required: true },
} as const;

const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

const screenshot = defineEndpoint({
  operation: 'screenshot',
  title: 'shot_a screenshot',
  summary: 'Capture a page with the screenshot API; the image is stored and returned as a temporary URL.',
  input: Type.Object({
    url: Type.String({ description: 'Page to capture.', minLength: 1 }),
    fullPage: Type.Optional(Type.Boolean({ description: 'Whole scrollable page (default false).' })),
    viewport: Type.Optional(Type.Object({ width: Type.Integer({ minimum: 100, maximum: 3840, description: 'Viewport width in CSS pixels.' }), height: Type.Integer({ minimum: 100, maximum: 10240, description: 'Viewport height in CSS pixels.' }) }, { description: 'Viewport in CSS pixels.' })),
    wait: Type.Optional(Type.Integer({ minimum: 0, maximum: 30000, description: 'Extra wait after load, ms (sent as whole seconds of delay).' })),
    format: Type.Optional(Type.Union([Type.Literal('png'), Type.Literal('jpeg'), Type.Literal('webp')], { description: 'Image format (default png).' })),
    blockCookieBanners: Type.Optional(Type.Boolean({ description: 'Hide cookie banners (block_cookie_banners; default true).' })),
    clip: Type.Optional(
      Type.Object(
        {
          x: Type.Integer({ minimum: 0, description: 'Left edge, CSS pixels (clip_x).' }),
          y: Type.Integer({ minimum: 0, description: 'Top edge, CSS pixels (clip_y).' }),
          width: Type.Integer({ minimum: 1, description: 'Width, CSS pixels (clip_width).' }),
          height: Type.Integer({ minimum: 1, description: 'Height, CSS pixels (clip_height).' }),
        },
        { description: 'Capture only this rectangle of the page.' },
      ),
    ),
  }),
  output: Type.Object({
    url: Type.String({ description: 'Temporary URL of the image.' }),
    contentType: Type.String({ description: 'Image type.' }),
    expiresAt: Type.String({ description: 'When the URL stops working.' }),
    size: Type.Integer({ description: 'Image size in bytes.' }),
  }),
  cost: flat(10),
  examples: [{ title: 'A 1280×800 PNG', input: { url: 'https://example.org', viewport: { width: 1280, height: 800 } } }],
  messages: { url: "'url' parameter is required and must be a non-empty string." },
  async run(input, ctx) {
    const options: TakeOptions = { url: input.url, format: input.format ?? 'png', full_page: input.fullPage ?? false, response_type: 'by_format', wait_until: 'load' };
    if (input.viewport) Object.assign(options, { viewport_width: input.viewport.width, viewport_height: input.viewport.height });
    if (input.wait) options.delay = Math.ceil(input.wait / 1000);
    // contracts §7a: cookie banners are the API's own option; the clip is its clip_* options.
    options.block_cookie_banners = input.blockCookieBanners ?? true;
    if (input.clip) Object.assign(options, { clip_x: input.clip.x, clip_y: input.clip.y, clip_width: input.clip.width, clip_height: input.clip.height });
    const shot = await take(ctx, options);
    const file = await ctx.engines.files.put(shot.bytes, { contentType: shot.contentType, extension: EXT[shot.contentType] ?? 'img' });
    ctx.usage.add('output_bytes', shot.bytes.byteLength);
    return { url: file.url, contentType: shot.contentType, expiresAt: file.expiresAt.toISOString(), size: shot.bytes.byteLength };
  },
});

export default definePlugin({
  id: 'shot_a',
  apiVersion: 1,
  title: 'shot_a (ScreenshotOne-compatible API)',
  summary: 'Hosted screenshots of web pages.',
  tags: ['screenshot', 'image', 'render', 'provider'],
  config,
  endpoints: [screenshot],
  implements: [
    implement(screenshotCapability, screenshot, {
      // autoScroll has no ScreenshotOne option in contracts §7a: refused rather than ignored.
      mapInput: (i) => {
        if (i.autoScroll) throw new UnsupportedOptionError("'autoScroll' is not supported by provider shot_a; use provider web or browser_a.");
        return { url: userUrl(i.url), fullPage: i.fullPage, ...pngScreenshotSettings(i, 'shot_a'), blockCookieBanners: i.blockCookieBanners, clip: i.clipRectangle };
      },
      mapOutput: (o) => ({ screenshotUrl: o.url, url: o.url, contentType: o.contentType, expiresAt: o.expiresAt }),
    }),
  ],
});
