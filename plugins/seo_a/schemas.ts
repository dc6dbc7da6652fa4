/**
 * TypeBox schemas of the seo_a endpoints (DataForSEO v3, contracts §2a, §2b). Inputs use the
 * provider's own task field names, as an endpoint is the provider's operation (spec §4.10);
 * outputs are the task results, checked field by field where the service reads them.
 */
import { Type } from '../../core/sdk.js';
import { ReviewsOutput } from '../../core/catalogue.js';

const Opt = (s: Parameters<typeof Type.String>[0]) => Type.Optional(Type.String(s));
const location = {
  location_name: Opt({ minLength: 1, maxLength: 200, description: 'Full location name, e.g. "London,England,United Kingdom" (default for reviews).' }),
  location_code: Type.Optional(Type.Integer({ minimum: 1, description: "The provider's location code, e.g. 2826 (United Kingdom)." })),
};
const language_code = Opt({ pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$', description: 'Language code, e.g. en (default en for reviews).' });

/** Input of `engine_reviews` (contracts §2a task fields). */
export const ReviewsInput = Type.Object({
  keyword: Opt({ minLength: 1, maxLength: 700, description: 'Business name; one of keyword, cid or place_id is required.' }),
  cid: Opt({ minLength: 1, maxLength: 100, description: 'Maps client ID of the business.' }),
  place_id: Opt({ minLength: 1, maxLength: 300, description: 'Maps place ID of the business.' }),
  ...location,
  location_coordinate: Opt({ pattern: '^-?\\d+(\\.\\d+)?,-?\\d+(\\.\\d+)?(,\\d+(\\.\\d+)?)?$', description: 'Location as "lat,lng,radius".' }),
  language_code,
  depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 4490, description: 'Reviews to fetch (default 10, max 4490); charged on the number returned.' })),
  sort_by: Type.Optional(Type.Union(['relevant', 'newest', 'highest_rating', 'lowest_rating'].map((v) => Type.Literal(v)), { description: 'Order (default relevant).' })),
});

/** Output of `engine_reviews`: the task result, in the spec §4.4 shape. */
export { ReviewsOutput };

const open = { additionalProperties: true } as const;
const NumOrNull = (description: string) => Type.Optional(Type.Union([Type.Number(), Type.Null()], { description }));

/** Input of `labs_engine_keyword_ideas` (contracts §2b request fields). */
export const IdeasInput = Type.Object({
  keywords: Type.Array(Type.String({ minLength: 1, maxLength: 80, pattern: '\\S', description: 'A seed keyword.' }), { minItems: 1, maxItems: 200, description: 'Seed keywords (1 to 200).' }),
  ...location,
  language_code,
  closely_variants: Type.Optional(Type.Boolean({ description: 'Phrase-match ideas instead of broad match (default false).' })),
  ignore_synonyms: Type.Optional(Type.Boolean({ description: 'Leave out close synonyms (default false).' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Ideas per page (default 100, max 1000).' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000, description: 'Ideas to skip (paging).' })),
});

/** One keyword idea (contracts §2b item; only what the service reads is checked). */
export const IdeaItem = Type.Object(
  {
    keyword: Type.String({ description: 'The keyword idea.' }),
    location_code: NumOrNull('Location code.'),
    language_code: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Language code.' })),
    keyword_info: Type.Optional(Type.Union([
      Type.Object(
        {
          competition: NumOrNull('Competition, 0 to 1.'),
          competition_level: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'LOW, MEDIUM or HIGH.' })),
          cpc: NumOrNull('Cost per click, USD.'),
          search_volume: NumOrNull('Average monthly searches.'),
          low_top_of_page_bid: NumOrNull('Low top-of-page bid.'),
          high_top_of_page_bid: NumOrNull('High top-of-page bid.'),
          monthly_searches: Type.Optional(Type.Union([Type.Array(Type.Object({ year: Type.Integer({ description: 'Year.' }), month: Type.Integer({ description: 'Month.' }), search_volume: NumOrNull('Searches.') }, { ...open, description: 'One month.' })), Type.Null()], { description: 'Searches per month.' })),
        },
        { ...open, description: 'Search volume and ads data.' },
      ),
      Type.Null(),
    ], { description: 'Search volume and ads data.' })),
    keyword_properties: Type.Optional(Type.Union([Type.Object({ keyword_difficulty: NumOrNull('Difficulty, 0 to 100.') }, { ...open, description: 'Keyword properties.' }), Type.Null()], { description: 'Keyword properties.' })),
    search_intent_info: Type.Optional(Type.Union([Type.Object({ main_intent: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Main intent.' })) }, { ...open, description: 'Search intent.' }), Type.Null()], { description: 'Search intent.' })),
  },
  { ...open, description: 'A keyword idea.' },
);

/** Output of `labs_engine_keyword_ideas`: the live task result. */
export const IdeasOutput = Type.Object(
  {
    seed_keywords: Type.Array(Type.String(), { description: 'Seed keywords.' }),
    location_code: NumOrNull('Location code.'),
    language_code: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Language code.' })),
    total_count: Type.Integer({ description: 'Ideas available in all pages.' }),
    items_count: Type.Integer({ description: 'Ideas in this page.' }),
    offset: Type.Integer({ description: 'Offset of this page.' }),
    offset_token: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Token for pages past 10,000 ideas.' })),
    items: Type.Array(IdeaItem, { description: 'Ideas of this page.' }),
  },
  { ...open, description: 'Keyword ideas.' },
);
