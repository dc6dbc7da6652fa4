/**
 * What the creator_a fake knows: deterministic short-video and professional-network records in the
 * provider's own native shapes (contracts §3 sample responses), so the plugin's mappings are
 * exercised on the shapes the real API sends.
 */

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
/** Accounts `creator` follows, and its followers. */
export const FOLLOW_TOTAL = 15;

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

/** The native profile answer of `creator`. */
export const PROFILE = {
  user: {
    id: '6659752019493208069',
    uniqueId: 'creator',
    nickname: 'The Creator',
    avatarLarger: 'https://cdn.example/avt/creator~1080x1080.jpeg',
    avatarMedium: 'https://cdn.example/avt/creator~720x720.jpeg',
    avatarThumb: 'https://cdn.example/avt/creator~100x100.jpeg',
    signature: 'Short clips daily.',
    createTime: 1550594547,
    verified: true,
    secUid: 'MS4w.creator',
    privateAccount: false,
    bioLink: { link: 'https://creator.example', risk: 0 },
    language: 'en',
  },
  stats: { followerCount: 4100000, followingCount: FOLLOW_TOTAL, heart: 190400000, heartCount: 190400000, videoCount: 2017, diggCount: 0, friendCount: 52 },
  itemList: [],
};

/** Videos of `creator`'s profile: 12 in all, 5 per page, paged by a time cursor. */
export const PROFILE_VIDEOS = Array.from({ length: 12 }, (_, i) => ({ ...awemeDetail(`74000000000000${10 + i}00`), create_time: 1737600000 - i * 86400 }));

/** The company answer of `example-co` (contracts §3 `/v1/linkedin/company` fields). */
export const COMPANY = {
  id: '1441',
  name: 'Example Co',
  description: 'We make examples.',
  location: { city: 'Mountain View', state: 'California', country: 'US' },
  employeeCount: 2350,
  website: 'https://example.com',
  logo: 'https://media.example/logo.png',
  coverImage: 'https://media.example/cover.png',
  slogan: 'Examples for everyone',
  industry: 'Software Development',
  size: '1,001-5,000 employees',
  founded: 1998,
  headquarters: 'Mountain View, California',
  type: 'Public Company',
  followers: '12,345 followers',
  specialties: ['examples', 'testing'],
  funding: { numberOfRounds: 2, lastRound: 'Series B', investors: [] },
  employees: [{ name: 'Ada Example', title: 'CTO', image: 'https://media.example/ada.png', link: 'https://www.linkedin.com/in/ada-example' }],
  posts: [{ url: 'https://www.linkedin.com/posts/example-co_1', datePublished: '2025-01-10T09:00:00.000Z', text: 'We are hiring.' }],
  similarPages: [],
};

/** The person answer of `jane-example`. */
export const PERSON = {
  name: 'Jane Example',
  image: 'https://media.example/jane.png',
  location: 'Berlin, Germany',
  followers: 12847,
  connections: '500+',
  about: 'Builds things.',
  headline: 'Engineer at Example Co',
  experience: [
    { name: 'Example Co', url: 'https://www.linkedin.com/company/example-co', location: 'Berlin', member: { title: 'Engineer', startDate: '2021-03', description: 'Builds examples.' } },
    { name: 'Old Corp', member: { title: 'Intern', startDate: { year: 2019, month: 6 }, endDate: { year: 2020, month: 2 } } },
  ],
  education: [{ name: 'Example University', degree: 'BSc', fieldOfStudy: 'Computer Science', startDate: '2015', endDate: '2019' }],
  recentPosts: [{ title: 'Shipped it', activityType: 'Posted by Jane Example', link: 'https://www.linkedin.com/posts/jane_1', image: null }],
};
