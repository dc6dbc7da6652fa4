/**
 * What `blockAds` keeps a page from loading (issue 27): the ad, tracking and analytics networks
 * most pages pull in, and the paths of the common ad tags served from a site's own host. Patterns
 * are Chromium's blocked-URL syntax (`*` matches anything). Best effort by design: a list, not a
 * filter engine, and small enough to check on every request.
 */
const HOSTS = [
  'doubleclick.net',
  'googlesyndication.com',
  'googleadservices.com',
  'google-analytics.com',
  'googletagmanager.com',
  'googletagservices.com',
  'adservice.google.com',
  'amazon-adsystem.com',
  'adnxs.com',
  'adsrvr.org',
  'criteo.com',
  'criteo.net',
  'taboola.com',
  'outbrain.com',
  'pubmatic.com',
  'rubiconproject.com',
  'openx.net',
  'casalemedia.com',
  'moatads.com',
  'scorecardresearch.com',
  'quantserve.com',
  'hotjar.com',
  'connect.facebook.net',
  'ads-twitter.com',
  'ads.linkedin.com',
  'bat.bing.com',
  'yieldmo.com',
  'sharethrough.com',
  'media.net',
  'smartadserver.com',
];

/** Blocked-URL patterns for `blockAds`. */
export const AD_URL_PATTERNS: readonly string[] = [
  ...HOSTS.flatMap((h) => [`*://${h}/*`, `*://*.${h}/*`]),
  // Ad tags a site serves itself, under the names the ad networks give them.
  '*/pagead/*',
  '*/adsbygoogle.js*',
  '*/prebid*.js*',
  '*/gpt.js*',
];
