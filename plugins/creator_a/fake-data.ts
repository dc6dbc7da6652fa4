/**
 * What the creator_a fake knows: deterministic short-video and professional-network records in the
 * provider's own native shapes (contracts §3 sample responses), so the plugin's mappings are
 * exercised on the shapes the real API sends. Fixed records are recorded answers in `recorded/`;
 * what is built per index (comments, follow lists, video details) is built here.
 */
import PROFILE from './recorded/clipsite-profile.json' with { type: 'json' };
import COMPANY from './recorded/bizsite-company.json' with { type: 'json' };
import PERSON from './recorded/bizsite-person.json' with { type: 'json' };

/** The native answers of the profile `creator`, the company `example-co` and the person `jane-example`. */
export { PROFILE, COMPANY, PERSON };

/** The video every example and test uses: 25 comments, a WebVTT transcript, a detail. */
export const VIDEO_ID = '7400000000000000001';
/** A video without comments or subtitles. */
export const QUIET_VIDEO_ID = '7400000000000000002';
/** A video whose transcript is not WebVTT and whose comments field is broken. */
export const BROKEN_VIDEO_ID = '7400000000000000003';
/** Comments per provider page. */
export const COMMENT_PAGE = 10;
/** Entries per following/followers page. */
export const FOLLOW_PAGE = 10;
/** Comments of VIDEO_ID. */
export const COMMENT_TOTAL = 25;
/** Accounts `creator` follows (as its profile says), and its followers. */
export const FOLLOW_TOTAL = PROFILE.stats.followingCount;

const avatar = (n: string) => ({ uri: `avt/${n}`, url_list: [`https://cdn.example/avt/${n}~100x100.webp`, `https://cdn.example/avt/${n}~100x100.jpeg`], width: 100, height: 100 });

/** A native user of a comment. */
const commenter = (i: number) => ({ uid: `69000000000000${i}`, unique_id: `fan${i}`, nickname: `Fan ${i}`, sec_uid: `MS4w.fan${i}`, avatar_thumb: avatar(`fan${i}`), custom_verify: i === 1 ? 'Verified account' : '', enterprise_verify_reason: '' });

/** Comment `i` (0-based, newest first) of VIDEO_ID in the site's native shape. */
export function nativeComment(i: number) {
  const replies = i % 5 === 0 ? [{ cid: `r${i}`, aweme_id: VIDEO_ID, text: `Reply to ${i}`, create_time: 1737679000 - i * 60 + 30, digg_count: 2, user: commenter(100 + i), status: 1 }] : null;
  return {
    cid: `c${i}`,
    aweme_id: VIDEO_ID,
    text: `Comment ${i}`,
    create_time: 1737679000 - i * 60,
    digg_count: 1000 - i,
    reply_comment_total: replies ? 3 : 0,
    reply_comment: replies,
    comment_language: 'en',
    status: 1,
    user: commenter(i),
    share_info: null,
  };
}

/** Follow entry `i` (0-based, most recent first) of `creator`'s list, in the native user shape. */
export function nativeFollow(kind: 'following' | 'followers', i: number) {
  const name = `${kind === 'following' ? 'star' : 'fan'}${i}`;
  return {
    uid: `${kind === 'following' ? 71 : 72}00000000000${i}`,
    unique_id: name,
    nickname: name.toUpperCase(),
    signature: `Bio of ${name}`,
    follower_count: 1000 * (i + 1),
    following_count: 10 + i,
    aweme_count: 5 + i,
    total_favorited: String(50_000 + i),
    favoriting_count: 7,
    avatar_thumb: avatar(name),
    sec_uid: `MS4w.${name}`,
    secret: i === 2 ? 1 : 0,
    custom_verify: i === 0 ? 'Popular creator' : '',
    /** When the follow happened: the list's time cursor. */
    follow_time: 1_700_000_000 - i * 3600,
  };
}

/** A WebVTT transcript as the provider returns it. */
export const WEBVTT = 'WEBVTT\n\n00:00:00.120 --> 00:00:02.480\nHello and welcome\n\n00:00:02.480 --> 00:00:05.000\nto the clip\n';

/** The native video detail (`aweme_detail`) of an id. */
export function awemeDetail(id: string) {
  return {
    aweme_id: id,
    desc: `Caption of ${id}`,
    create_time: 1737600000,
    author: { uid: '6659752019493208069', unique_id: 'creator', nickname: 'The Creator', avatar_thumb: avatar('creator') },
    music: { id: 7000, title: 'original sound', author: 'The Creator' },
    statistics: { aweme_id: id, play_count: 120000, digg_count: 9000, comment_count: COMMENT_TOTAL, share_count: 40, collect_count: 12 },
    video: { duration: 15000, cover: { url_list: [`https://cdn.example/cover/${id}.jpeg`] }, play_addr: { url_list: [`https://cdn.example/play/${id}.mp4`] } },
    share_url: `https://www.tiktok.com/@creator/video/${id}`,
  };
}

/** Videos of `creator`'s profile: 12 in all, 5 per page, paged by a time cursor. */
export const PROFILE_VIDEOS = Array.from({ length: 12 }, (_, i) => ({ ...awemeDetail(`74000000000000${10 + i}00`), create_time: 1737600000 - i * 86400 }));
