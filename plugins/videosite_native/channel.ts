/**
 * Channels (spec §2.4) and their video and Shorts tabs, from `/navigation/resolve_url` (handle or
 * legacy URL → channel id) and `/browse`. The "about" facts (country, joined date, view count,
 * links) live in a panel the channel page loads with a continuation; it is fetched the same way.
 */
import { InputError, NotFoundError, invalidStructure, type RunContext, type Static } from '../../core/sdk.js';
import type { ChannelRef, VideositeChannel } from '../../core/catalogue.js';
import { videosIn, type VideoSummary } from './items.js';
import { SERVICE, innertube, type NativeState } from './session.js';
import { bestImage, continuationOf, countOf, findAll, findFirst, textOf, type Json } from './text.js';

/** Spec §2.4 plus the extra properties it allows (url, banner). */
type Channel = Static<typeof VideositeChannel> & Record<string, unknown>;

/** Tab parameters of the channel page (what the site's own tab links carry). */
const TAB_PARAMS = { videos: 'EgZ2aWRlb3PyBgQKAjoA', shorts: 'EgZzaG9ydHPyBgUKA5oBAA%3D%3D' } as const;

/** The channel id a reference names, resolving handles and /c/, /user/ paths through the site. */
export async function channelIdOf(ctx: RunContext<NativeState>, ref: ChannelRef): Promise<string> {
  if ('id' in ref) return ref.id;
  const path = 'handle' in ref ? `/${ref.handle}` : ref.path;
  const shown = 'handle' in ref ? ref.handle : path;
  const res = await innertube(ctx, '/navigation/resolve_url', { url: `https://www.youtube.com${path}` }, { on4xx: () => new NotFoundError(`Channel not found: ${shown}`) });
  const id = findFirst(res, 'browseEndpoint')?.browseId;
  if (typeof id !== 'string' || !id.startsWith('UC')) throw new NotFoundError(`Channel not found: ${shown}`);
  return id;
}

async function browse(ctx: RunContext<NativeState>, payload: Record<string, unknown>, what: string): Promise<Json> {
  const page = await innertube(ctx, '/browse', payload, { on4xx: (s) => (s === 404 ? new NotFoundError(`Channel not found: ${what}`) : new InputError(`Invalid channel or continuationToken: ${what}`)) });
  const alert = findAll(page?.alerts, 'alertRenderer')[0] ?? findAll(page?.alerts, 'alertWithButtonRenderer')[0];
  if (alert && !page?.header && !page?.onResponseReceivedActions) throw new NotFoundError(`Channel not found or unavailable: ${what} (${textOf(alert.text) ?? 'no reason given'}).`);
  return page;
}

/** Links of the about panel as absolute URLs (the site wraps them in /redirect?q=…). */
function linksOf(about: Json): string[] {
  return findAll(about?.links, 'channelExternalLinkViewModel').map((l: Json) => {
    const url = findFirst(l.link, 'urlEndpoint')?.url ?? textOf(l.link) ?? '';
    try {
      const u = new URL(url, 'https://www.youtube.com');
      const q = u.pathname === '/redirect' ? u.searchParams.get('q') : null;
      return q ?? (/^https?:/.test(url) ? url : `https://${url}`);
    } catch {
      return `https://${url}`;
    }
  });
}

/** Maps the channel page and its about panel to spec §2.4. */
export function mapChannel(page: Json, aboutPage: Json, ctx: RunContext<NativeState>): Channel {
  const meta = page?.metadata?.channelMetadataRenderer;
  if (!meta?.externalId) throw invalidStructure(ctx, 'browse: no channelMetadataRenderer', SERVICE);
  const about = findFirst(aboutPage, 'aboutChannelViewModel') ?? {};
  const header = page.header ?? {};
  const rows: string[] = findAll(header, 'metadataParts').flatMap((ps: Json[]) => ps.map((p) => textOf(p?.text) ?? '')).filter(Boolean);
  const vanity = String(about.canonicalChannelUrl ?? meta.vanityChannelUrl ?? '');
  const handle = /\/(@[^/?#]+)/.exec(vanity)?.[1] ?? rows.find((r) => r.startsWith('@')) ?? textOf(findFirst(header, 'channelHandleText'));
  const subsText = textOf(about.subscriberCountText) ?? rows.find((r) => /subscriber/i.test(r)) ?? textOf(findFirst(header, 'subscriberCountText')) ?? null;
  const links = linksOf(about);
  const pick = (re: RegExp) => links.find((l) => re.test(new URL(l).hostname)) ?? null;
  const avatar = meta.avatar?.thumbnails ?? findFirst(header, 'avatarViewModel')?.image?.sources ?? [];
  return {
    channelId: meta.externalId,
    channel: handle ?? meta.channelUrl ?? `https://www.youtube.com/channel/${meta.externalId}`,
    name: meta.title ?? '',
    description: about.description ?? meta.description ?? '',
    subscriberCount: countOf(subsText),
    subscriberCountText: subsText,
    videoCountText: textOf(about.videoCountText) ?? rows.find((r) => /video/i.test(r)) ?? null,
    viewCountText: textOf(about.viewCountText) ?? null,
    joinedDateText: textOf(about.joinedDateText)?.replace(/^joined\s+/i, '') ?? null,
    tags: meta.keywords || null,
    country: about.country ?? null,
    email: null, // The site shows a channel's e-mail only to signed-in viewers after a captcha.
    store: pick(/(^|\.)(shop|store|merch|teespring|spreadshop)|shopify/i),
    twitter: pick(/(^|\.)(twitter\.com|x\.com)$/i),
    instagram: pick(/(^|\.)instagram\.com$/i),
    links,
    avatar: { image: { sources: (Array.isArray(avatar) ? avatar : []).map((s: Json) => ({ url: bestImage([s]) ?? s.url, width: s.width, height: s.height })) } },
    url: `https://www.youtube.com/channel/${meta.externalId}`,
    ...(bestImage(findFirst(header, 'banner')?.imageBannerViewModel?.image ?? header?.c4TabbedHeaderRenderer?.banner) ? { banner: bestImage(findFirst(header, 'banner')?.imageBannerViewModel?.image ?? header.c4TabbedHeaderRenderer?.banner) } : {}),
  };
}

/** The channel with its about facts (two requests, three for a handle). */
export async function getChannel(ctx: RunContext<NativeState>, ref: ChannelRef): Promise<Channel> {
  const id = await channelIdOf(ctx, ref);
  const page = await browse(ctx, { browseId: id }, id);
  const panel = findAll(page?.header, 'showEngagementPanelEndpoint').map((e: Json) => findFirst(e, 'continuationCommand')?.token).find(Boolean);
  const aboutPage = panel ? await browse(ctx, { continuation: panel }, id) : {};
  ctx.setNative({ page, about: aboutPage });
  return mapChannel(page, aboutPage, ctx);
}

/** The items and next-page token of the selected tab, or of a continuation answer. */
function tabItems(page: Json): { items: VideoSummary[]; token: string | null } {
  const tab = findAll(page, 'tabRenderer').find((t: Json) => t.selected && t.content)?.content ?? findAll(page, 'expandableTabRenderer').find((t: Json) => t.selected)?.content;
  const root = tab ?? page?.onResponseReceivedActions ?? page?.onResponseReceivedEndpoints;
  if (!root) return { items: [], token: null };
  return { items: videosIn(root), token: continuationOf(root) };
}

/**
 * One page of a channel's videos or Shorts. `popular` follows the tab's "Popular" chip (one more
 * request); a `continuationToken` is the next page of whichever order the first page used.
 */
export async function listChannel(ctx: RunContext<NativeState>, ref: ChannelRef, tab: 'videos' | 'shorts', opts: { sort?: string; continuationToken?: string }): Promise<{ items: VideoSummary[]; continuationToken: string | null }> {
  if (opts.continuationToken) {
    const page = await browse(ctx, { continuation: opts.continuationToken }, 'continuationToken');
    ctx.setNative(page);
    const { items, token } = tabItems(page);
    return { items, continuationToken: token };
  }
  const id = await channelIdOf(ctx, ref);
  let page = await browse(ctx, { browseId: id, params: decodeURIComponent(TAB_PARAMS[tab]) }, id);
  if (!page?.metadata?.channelMetadataRenderer && !findAll(page, 'tabRenderer', 1).length) throw invalidStructure(ctx, 'browse: no channel tabs', SERVICE);
  if (opts.sort === 'popular') {
    const chip = findAll(page, 'chipCloudChipRenderer').find((c: Json) => /popular/i.test(textOf(c.text) ?? ''));
    const chipView = findAll(page, 'chipViewModel').find((c: Json) => /popular/i.test(String(c.text ?? '')));
    const token = findFirst(chip ?? chipView, 'continuationCommand')?.token;
    if (token) page = await browse(ctx, { continuation: token }, id);
  }
  ctx.setNative(page);
  const { items, token } = tabItems(page);
  // Tab items carry no byline: they are all the channel's own.
  const meta = page?.metadata?.channelMetadataRenderer;
  const handle = /\/(@[^/?#]+)/.exec(String(meta?.vanityChannelUrl ?? ''))?.[1] ?? null;
  const owner = { id, title: meta?.title ?? null, handle, url: `https://www.youtube.com/${handle ?? `channel/${id}`}` };
  return { items: items.map((v) => (v.channel.id ? v : { ...v, channel: owner })), continuationToken: token };
}
