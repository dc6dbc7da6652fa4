/**
 * TypeBox schemas of the search_a provider endpoints (Serper-compatible API, contracts §1).
 * Inputs use the provider's own field names (`q`, `gl`, `hl`, `tbs`…) because an endpoint is the
 * provider's operation as it is (spec §4.10). Outputs are the provider's documented shapes and
 * tolerate extra fields: the contract is third-party knowledge of medium confidence, so only the
 * result array of each endpoint is required and item fields are checked by type when present.
 */
import { Type, type TSchema } from '../../core/sdk.js';
import { ScrapeOutcome } from '../../core/catalogue.js';

const open = { additionalProperties: true } as const;
const Str = (description: string) => Type.Optional(Type.String({ description }));
const Num = (description: string) => Type.Optional(Type.Number({ description }));
const Int = (description: string) => Type.Optional(Type.Integer({ description }));

/** Request fields every endpoint accepts (contracts §1 "Common request fields"). */
export const commonInput = {
  // `\S`: a query of only whitespace is rejected before credits are reserved or the provider is called.
  q: Type.String({ minLength: 1, maxLength: 2048, pattern: '\\S', description: 'Query text (at least one non-space character).' }),
  gl: Type.Optional(Type.String({ minLength: 2, maxLength: 2, pattern: '^[A-Za-z]{2}$', description: 'Country code, ISO 3166-1 alpha-2 (e.g. us, gb, de; sent lower-cased as the provider expects). Default us.' })),
  hl: Type.Optional(Type.String({ minLength: 2, maxLength: 10, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$', description: 'Interface language code (e.g. en, pt-br, de). Default en.' })),
  location: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Canonical location to geo-target results, e.g. "Austin,Texas,United States" (see GET /api/v1/engine-locations).' })),
  num: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Results per page (default 10).' })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '1-based page number.' })),
  autocorrect: Type.Optional(Type.Boolean({ description: 'Let the engine correct spelling (default true).' })),
  tbs: Type.Optional(Type.String({ maxLength: 200, description: 'Time filter: qdr:h past hour, qdr:d past day, qdr:w past week, qdr:m past month, qdr:y past year.' })),
};

const Safe = Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('off')], { description: 'Safe-search filtering.' }));

/** Input of the endpoints that take only the common fields. */
export const BasicInput = Type.Object(commonInput);
/**
 * Input of `search`: the common fields plus the service-side scraping of the top results (issue 14:
 * `scrapeResults`), which is never sent upstream: the results are scraped by the service's own
 * scrape lane, 10 credits per page scraped.
 */
export const SearchInput = Type.Object({
  ...commonInput,
  scrapeResults: Type.Optional(Type.Boolean({ description: 'Service-side, not sent upstream: also scrape the top organic results (10 credits per page scraped).' })),
  numResultsToScrape: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'How many top results to scrape (default 3).' })),
  scrapeOptions: Type.Optional(Type.Object({
    format: Type.Optional(Type.Union([Type.Literal('markdown'), Type.Literal('html'), Type.Literal('screenshot')], { description: 'Format of each scraped page (default markdown).' })),
    cleaned: Type.Optional(Type.Boolean({ description: 'Keep only the main content of each page.' })),
    renderJs: Type.Optional(Type.Boolean({ description: 'Render JavaScript (default true); false is faster.' })),
  }, { description: 'How each result is scraped (as POST /api/v1/scrape).' })),
});
/** Fields of {@link SearchInput} the service handles itself; they never go upstream. */
export const SERVICE_SIDE_FIELDS = ['scrapeResults', 'numResultsToScrape', 'scrapeOptions'];
/** Input of `news`, `images` and `videos`: the common fields plus safe search. */
export const SafeInput = Type.Object({ ...commonInput, safe: Safe });
/** Input of `autocomplete`: a query and its locale (pagination does not apply). */
export const AutocompleteInput = Type.Object({ q: commonInput.q, gl: commonInput.gl, hl: commonInput.hl, location: commonInput.location });
/** Input of `maps`: the common fields plus GPS position and single-place lookups. */
export const MapsInput = Type.Object({
  ...commonInput,
  ll: Type.Optional(Type.String({ pattern: '^@-?\\d+(\\.\\d+)?,-?\\d+(\\.\\d+)?,\\d+(\\.\\d+)?z$', description: 'Map position and zoom, "@<lat>,<lng>,<zoom>z" (e.g. "@40.7,-74.0,14z").' })),
  placeId: Type.Optional(Type.String({ minLength: 1, description: 'Place ID of a single place.' })),
  cid: Type.Optional(Type.String({ minLength: 1, description: 'Maps client ID (CID) of a single place.' })),
});
/** Input of `scholar`: the common fields plus a year range and a citing-cluster filter. */
export const ScholarInput = Type.Object({
  ...commonInput,
  as_ylo: Type.Optional(Type.Integer({ minimum: 1000, maximum: 3000, description: 'Earliest publication year.' })),
  as_yhi: Type.Optional(Type.Integer({ minimum: 1000, maximum: 3000, description: 'Latest publication year.' })),
  cites: Type.Optional(Type.String({ minLength: 1, description: 'Only works citing this cluster id.' })),
});

/** The request echo every response carries. */
export const SearchParameters = Type.Object(
  {
    q: Type.String({ description: 'Query as searched.' }),
    gl: Str('Country code used.'),
    hl: Str('Language code used.'),
    type: Str('Endpoint type (search, news, places…).'),
    engine: Str('Engine that answered (google).'),
    location: Str('Location used, when one was sent.'),
    tbs: Str('Time filter used, when one was sent.'),
    num: Int('Results per page.'),
    page: Int('Page number.'),
    autocorrect: Type.Optional(Type.Boolean({ description: 'Whether autocorrection was on.' })),
  },
  { ...open, description: 'Echo of the request parameters.' },
);

const Item = (fields: Record<string, TSchema>, description: string) => Type.Object(fields, { ...open, description });

/** An organic web result. */
export const OrganicItem = Item(
  {
    title: Str('Page title.'),
    link: Str('Page URL.'),
    snippet: Str('Text excerpt.'),
    position: Int('1-based rank.'),
    date: Str('Date shown with the result.'),
    sitelinks: Type.Optional(Type.Array(Type.Object({ title: Str('Sitelink title.'), link: Str('Sitelink URL.') }, open), { description: 'Deep links under the result.' })),
    attributes: Type.Optional(Type.Object({}, { ...open, description: 'Extra facts shown with the result.' })),
    scrapeOutput: Type.Optional(ScrapeOutcome),
  },
  'An organic result.',
);

/** A news article. */
export const NewsItem = Item(
  { title: Str('Headline.'), link: Str('Article URL.'), snippet: Str('Excerpt.'), date: Str('Relative date as shown, e.g. "2 hours ago".'), source: Str('Publisher.'), imageUrl: Str('Thumbnail URL.'), position: Int('1-based rank.') },
  'A news article.',
);

/** A place (local business). */
export const PlaceItem = Item(
  {
    position: Int('1-based rank.'),
    title: Str('Business name.'),
    address: Str('Postal address.'),
    latitude: Num('Latitude.'),
    longitude: Num('Longitude.'),
    thumbnailUrl: Str('Photo URL.'),
    rating: Num('Average rating (0–5).'),
    ratingCount: Int('Number of ratings.'),
    category: Str('Business category.'),
    phoneNumber: Str('Phone number.'),
    website: Str('Website URL.'),
    cid: Str('Maps client ID.'),
  },
  'A place.',
);

/** A maps place: a place plus map-specific identifiers. */
export const MapsItem = Item(
  {
    ...PlaceItem.properties,
    type: Str('Primary place type.'),
    types: Type.Optional(Type.Array(Type.String(), { description: 'All place types.' })),
    placeId: Str('Place ID.'),
    fid: Str('Feature ID.'),
    openingHours: Type.Optional(Type.Object({}, { ...open, description: 'Opening hours per weekday.' })),
    priceLevel: Str('Price level, e.g. "$$".'),
    description: Str('Description.'),
  },
  'A maps place.',
);

/** An image result. */
export const ImageItem = Item(
  {
    title: Str('Image title.'),
    imageUrl: Str('Full-size image URL.'),
    imageWidth: Int('Width in pixels.'),
    imageHeight: Int('Height in pixels.'),
    thumbnailUrl: Str('Thumbnail URL.'),
    thumbnailWidth: Int('Thumbnail width.'),
    thumbnailHeight: Int('Thumbnail height.'),
    source: Str('Site name.'),
    domain: Str('Site domain.'),
    link: Str('Page the image is on.'),
    googleUrl: Str("The engine's result URL."),
    position: Int('1-based rank.'),
  },
  'An image.',
);

/** A video result. */
export const VideoItem = Item(
  { title: Str('Video title.'), link: Str('Video URL.'), snippet: Str('Description excerpt.'), imageUrl: Str('Thumbnail URL.'), duration: Str('Duration, e.g. "10:30".'), source: Str('Hosting site.'), channel: Str('Channel name.'), date: Str('Publication date as shown.'), position: Int('1-based rank.') },
  'A video.',
);

/** A shopping offer. */
export const ShoppingItem = Item(
  {
    title: Str('Product title.'),
    source: Str('Merchant.'),
    link: Str('Offer URL.'),
    price: Str('Price as shown, e.g. "$9.99".'),
    delivery: Str('Delivery note.'),
    imageUrl: Str('Product image URL.'),
    rating: Num('Average rating.'),
    ratingCount: Int('Number of ratings.'),
    offers: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'Number of offers as shown.' })),
    productId: Str('Product id.'),
    position: Int('1-based rank.'),
  },
  'A shopping offer.',
);

/** A scholarly work (field names are low confidence in the contract, so all are optional). */
export const ScholarItem = Item(
  {
    title: Str('Work title.'),
    link: Str('Work URL.'),
    publicationInfo: Str('Authors, venue and year as one line.'),
    snippet: Str('Excerpt.'),
    year: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: 'Publication year.' })),
    citedBy: Int('Number of citations.'),
    pdfUrl: Str('PDF URL.'),
    id: Str('Cluster id (usable as `cites`).'),
  },
  'A scholarly work.',
);

/** A patent (field names are low confidence in the contract, so all are optional). */
export const PatentItem = Item(
  {
    title: Str('Patent title.'),
    snippet: Str('Abstract excerpt.'),
    link: Str('Patent page URL.'),
    priorityDate: Str('Priority date.'),
    filingDate: Str('Filing date.'),
    grantDate: Str('Grant date.'),
    publicationDate: Str('Publication date.'),
    inventor: Str('Inventor(s).'),
    assignee: Str('Assignee.'),
    publicationNumber: Str('Publication number.'),
    language: Str('Language code.'),
    thumbnailUrl: Str('Thumbnail URL.'),
    pdfUrl: Str('PDF URL.'),
    figures: Type.Optional(Type.Array(Type.Object({}, open), { description: 'Figures.' })),
  },
  'A patent.',
);

/** A response: the request echo plus one required result array (the provider's `credits` is dropped). */
export function resultOf(key: string, item: TSchema, description: string, extra: Record<string, TSchema> = {}): TSchema {
  return Type.Object(
    { searchParameters: SearchParameters, [key]: Type.Array(item, { description }), ...extra } as Record<string, TSchema>,
    { ...open, description: 'Provider response (the provider-side credit count is only in meta.native).' },
  );
}

/** Extra top-level blocks of a web search response. */
export const searchExtras = {
  knowledgeGraph: Type.Optional(Type.Object({ title: Str('Entity name.'), type: Str('Entity type.'), website: Str('Official website.'), imageUrl: Str('Image URL.'), description: Str('Description.'), descriptionSource: Str('Source of the description.'), descriptionLink: Str('Link to the source.'), attributes: Type.Optional(Type.Object({}, { ...open, description: 'Facts about the entity as label → value text, e.g. { "Founded": "1976" }.' })) }, { ...open, description: 'Knowledge panel about the main entity.' })),
  answerBox: Type.Optional(Type.Object({ title: Str('Title.'), answer: Str('Direct answer.'), snippet: Str('Snippet.'), snippetHighlighted: Type.Optional(Type.Array(Type.String(), { description: 'Parts of the snippet the engine highlights as the answer.' })), link: Str('Source URL.') }, { ...open, description: 'Direct answer box.' })),
  peopleAlsoAsk: Type.Optional(Type.Array(Type.Object({ question: Str('Question.'), snippet: Str('Answer excerpt.'), title: Str('Source title.'), link: Str('Source URL.') }, open), { description: 'Related questions.' })),
  relatedSearches: Type.Optional(Type.Array(Type.Object({ query: Str('Related query.') }, open), { description: 'Related searches.' })),
  topStories: Type.Optional(Type.Array(Type.Object({ title: Str('Headline.'), link: Str('URL.'), source: Str('Publisher.'), date: Str('Date as shown.'), imageUrl: Str('Image URL.') }, open), { description: 'Top stories carousel.' })),
};

/** Output of `autocomplete`. */
export const AutocompleteOutput = Type.Object(
  { searchParameters: SearchParameters, suggestions: Type.Array(Type.Object({ value: Type.String({ description: 'A suggested query.' }) }, open), { description: 'Suggestions, best first.' }) },
  { ...open, description: 'Provider response.' },
);
