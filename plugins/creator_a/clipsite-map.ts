/**
 * The provider's short-video objects (the site's native shapes, contracts §3) mapped onto spec
 * §2.9. The site's counters arrive as numbers or numeric strings and its flags as 0/1 or
 * booleans; everything is normalised here, and an item without its id is a broken answer.
 */
import type { Json } from './client.js';

/** Thrown by a mapper for an answer that lacks what spec §2.9 requires; the caller makes it a 502. */
export class BadShape extends Error {}

/** An integer from a number or numeric string (`"1.2K"` is not numeric: 0). */
export function int(v: unknown): number {
  const n = typeof v === 'string' ? Number(v.replace(/,/g, '')) : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

/** An integer, or null when the value is absent or not numeric. */
export function intOrNull(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const n = typeof v === 'string' ? Number(v.replace(/,/g, '')) : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : '');
const truthy = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true';
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

function id(v: unknown, what: string): string {
  const s = str(v);
  if (!s) throw new BadShape(`${what} without an id`);
  return s;
}

/** The URLs of a native image object (`{ uri, url_list }`) or a plain URL string. */
function urlList(v: unknown): string[] {
  if (typeof v === 'string') return v ? [v] : [];
  const list = obj(v).url_list;
  return Array.isArray(list) ? list.filter((u): u is string => typeof u === 'string') : [];
}

/** Native verification: an explicit flag, or a custom/enterprise verification text. */
function verified(u: Json): boolean {
  return truthy(u.verified) || Boolean(str(u.custom_verify)) || Boolean(str(u.enterprise_verify_reason)) || int(u.verification_type) > 0;
}

function commentUser(v: unknown): Json {
  const u = obj(v);
  return { uid: str(u.uid ?? u.id), unique_id: str(u.unique_id ?? u.uniqueId), nickname: str(u.nickname), avatar_thumb: { url_list: urlList(u.avatar_thumb ?? u.avatarThumb) }, verified: verified(u) };
}

function reply(v: unknown): Json {
  const c = obj(v);
  return { cid: id(c.cid, 'reply'), text: str(c.text), create_time: int(c.create_time), digg_count: int(c.digg_count), user: commentUser(c.user) };
}

/** A comment (spec §2.9) with its nested replies; the site sends `reply_comment: null` when there are none. */
export function comment(v: unknown): Json {
  const c = obj(v);
  return {
    ...reply(c),
    reply_comment_total: int(c.reply_comment_total),
    reply_comment: Array.isArray(c.reply_comment) ? c.reply_comment.map(reply) : [],
  };
}

/**
 * A following/follower entry (spec §2.9) from the site's native user object (`uid`, `unique_id`,
 * `follower_count`, `aweme_count`, `total_favorited`, `secret`…) or from its web shape
 * (`{ user: { id, uniqueId… }, stats }`), which some answers carry instead.
 */
export function followEntry(v: unknown): Json {
  const e = obj(v);
  if (e.user && e.stats) {
    const u = obj(e.user);
    const s = obj(e.stats);
    return {
      user: { id: id(u.id, 'user'), uniqueId: str(u.uniqueId), nickname: str(u.nickname), avatarThumb: urlList(u.avatarThumb)[0] ?? '', signature: str(u.signature), verified: truthy(u.verified), secUid: str(u.secUid), privateAccount: truthy(u.privateAccount) },
      stats: { followerCount: int(s.followerCount), followingCount: int(s.followingCount), heartCount: int(s.heartCount ?? s.heart), videoCount: int(s.videoCount), diggCount: int(s.diggCount) },
    };
  }
  return {
    user: {
      id: id(e.uid ?? e.id, 'user'),
      uniqueId: str(e.unique_id ?? e.uniqueId),
      nickname: str(e.nickname),
      avatarThumb: urlList(e.avatar_thumb ?? e.avatar_168x168 ?? e.avatar_medium)[0] ?? '',
      signature: str(e.signature),
      verified: verified(e),
      secUid: str(e.sec_uid),
      privateAccount: truthy(e.secret) || truthy(e.private_account),
    },
    stats: {
      followerCount: int(e.follower_count),
      followingCount: int(e.following_count),
      heartCount: int(e.total_favorited),
      videoCount: int(e.aweme_count),
      diggCount: int(e.favoriting_count),
    },
  };
}

/** A video summary (spec §2.9) of a profile's list. */
export function videoSummary(v: unknown): Json {
  const a = obj(v);
  const awemeId = id(a.aweme_id ?? a.id, 'video');
  return {
    aweme_id: awemeId,
    id: awemeId,
    desc: typeof a.desc === 'string' ? a.desc : null,
    create_time: intOrNull(a.create_time ?? a.createTime),
    statistics: obj(a.statistics ?? a.stats),
    video: obj(a.video),
    author: obj(a.author),
  };
}

/** A cursor as the spec shows it: a string, or null when absent. */
export function cursorText(v: unknown): string | null {
  const s = str(v);
  return s === '' ? null : s;
}

/** A video (spec §2.9) from the `aweme_detail` of the provider's video answer. */
export function video(v: unknown, url: string): Json {
  const a = obj(v);
  const createTime = intOrNull(a.create_time ?? a.createTime);
  return {
    id: id(a.aweme_id ?? a.id, 'video'),
    desc: str(a.desc),
    createTime,
    createTimeISO: createTime === null ? null : new Date(createTime * 1000).toISOString(),
    video: obj(a.video),
    author: obj(a.author),
    music: obj(a.music),
    statistics: obj(a.statistics ?? a.stats),
    url: str(a.share_url) || url,
  };
}

/** Whether `text` starts the way a WebVTT document must: the `WEBVTT` signature line (an optional BOM first). */
export function isWebVtt(text: string): boolean {
  return /^\uFEFF?WEBVTT(?:[ \t][^\r\n]*)?(?:\r\n|\r|\n|$)/.test(text);
}

/** Whether a WebVTT document holds at least one cue (an empty one means no subtitles). */
export function hasCues(text: string): boolean {
  return /-->/.test(text);
}
