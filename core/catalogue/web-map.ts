/**
 * `map_site` (issue 25): the URLs of a site without fetching its pages — its sitemaps (named in
 * robots.txt, `/sitemap.xml`, indexes, gzipped files) and the links of its start page — for a
 * flat price per call.
 */
import { Type, defineCapability, flat, type Static } from '../sdk.js';
import { URL_REQUIRED, Url, checkUrl, userUrl } from './web-url.js';
import { PathPatterns, checkPathLists, pathPatternsMessage } from './web-paths.js';
import { SitemapMode } from './web-crawl.js';

/** Credits per map_site call, whatever the number of links. */
export const MAP_CREDITS = 10;
/** Most links one map returns. */
export const MAP_MAX_LINKS = 30_000;

const MapInput = Type.Object({
  url: Url('Site start page.'),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only URLs or titles containing this.' })),
  includePaths: Type.Optional(PathPatterns('Only paths matching one of these.')),
  excludePaths: Type.Optional(PathPatterns('Skip paths matching one of these.')),
  sitemap: Type.Optional(SitemapMode),
  includeSubdomains: Type.Optional(Type.Boolean({ description: 'Include subdomains (default false).' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAP_MAX_LINKS, description: 'Most links (default 5000).' })),
});
/** `map_site` input. */
export type MapSiteInput = Static<typeof MapInput>;

/** Output of `map_site`. */
export const MapOutput = Type.Object({
  links: Type.Array(
    Type.Object({
      url: Type.String({ description: 'A URL of the site.' }),
      title: Type.Optional(Type.String({ description: 'Its title or link text, when known.' })),
      description: Type.Optional(Type.String({ description: 'Its description, when known.' })),
    }),
    { description: 'Sitemap URLs, then the start page and its links.' },
  ),
  count: Type.Integer({ description: 'Number of links returned.' }),
});

/** map_site input after defaults. */
export type MapRequest = Required<Omit<MapSiteInput, 'search'>> & { search?: string };

/** Fills the documented defaults (sitemap include, 5000 links, no subdomains, no path rules). */
export function mapDefaults(i: MapSiteInput): MapRequest {
  return { url: userUrl(i.url), search: i.search, includePaths: i.includePaths ?? [], excludePaths: i.excludePaths ?? [], sitemap: i.sitemap ?? 'include', includeSubdomains: i.includeSubdomains ?? false, limit: i.limit ?? 5000 };
}

export const mapSite = defineCapability({
  id: 'map_site',
  title: 'Map a site',
  summary: "List a site's URLs from its sitemaps and start page (robots.txt honoured); 10 credits per call.",
  tags: ['web', 'map', 'sitemap', 'urls', 'site', 'links'],
  aliases: ['map'],
  input: MapInput,
  output: MapOutput,
  cost: flat(MAP_CREDITS),
  validate: (i: MapSiteInput) => checkUrl(i.url) ?? checkPathLists(i),
  messages: {
    url: URL_REQUIRED,
    search: "'search' must be a string of 1 to 200 characters.",
    includePaths: pathPatternsMessage('includePaths'),
    excludePaths: pathPatternsMessage('excludePaths'),
    sitemap: "'sitemap' must be one of: include, skip, only.",
    includeSubdomains: "'includeSubdomains' must be a boolean.",
    limit: `'limit' must be an integer between 1 and ${MAP_MAX_LINKS}.`,
  },
});
