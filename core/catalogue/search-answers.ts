/**
 * Keyword research and answers (issue 14, spec §4.10 `seo_a.labs_engine_keyword_ideas`,
 * `answer_a.search`): the capabilities `keyword_ideas` and `answer_question`, so v2 discovery
 * finds them by what they do and any provider of the kind can serve them.
 */
import { Type, defineCapability, perUnit } from '../sdk.js';

/** Keyword ideas are sold by result pages of this many ideas. */
export const IDEAS_PER_PAGE = 100;
/** Credits per started page of ideas returned. */
export const IDEAS_CREDITS_PER_PAGE = 20;
/** Credits per started 1,000 tokens the answer engine reports. */
export const ANSWER_CREDITS_PER_1K_TOKENS = 10;
/** Tokens reserved for the question and search context on top of the answer's `maxTokens`. */
export const ANSWER_PROMPT_TOKEN_ALLOWANCE = 4000;
/** Default and largest length of an answer, in tokens. */
export const ANSWER_DEFAULT_MAX_TOKENS = 1024;
export const ANSWER_MAX_TOKENS = 8192;

const NumOrNull = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

/** The cost rule of one page of keyword ideas: per started {@link IDEAS_PER_PAGE} ideas returned. */
export const keywordIdeasCost = perUnit({ unit: 'ideas', credits: IDEAS_CREDITS_PER_PAGE, per: IDEAS_PER_PAGE, max: (i: { limit?: number }) => i.limit ?? IDEAS_PER_PAGE, note: `${IDEAS_CREDITS_PER_PAGE} credits per started ${IDEAS_PER_PAGE} ideas returned` });

export const keywordIdeas = defineCapability({
  id: 'keyword_ideas',
  title: 'Keyword ideas',
  summary: 'Keyword ideas for seed keywords with search volume, competition, cost per click and monthly searches, for a location and language.',
  tags: ['keywords', 'keyword ideas', 'seo', 'search volume', 'cpc', 'research'],
  input: Type.Object({
    keywords: Type.Array(Type.String({ minLength: 1, maxLength: 80, pattern: '\\S', description: 'A seed keyword.' }), { minItems: 1, maxItems: 200, description: 'Seed keywords (1 to 200).' }),
    location: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Location of the search volumes (default "United States"), a country or a canonical name from GET /api/v1/engine-locations.' })),
    language: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$', description: "Language code (default: the location's main language)." })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: `Ideas per page (default ${IDEAS_PER_PAGE}, max 1000).` })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000, description: 'Ideas to skip: the next page starts at offset + limit.' })),
  }),
  output: Type.Object({
    seedKeywords: Type.Array(Type.String(), { description: 'Seed keywords as searched.' }),
    locationCode: Type.Union([Type.Integer(), Type.Null()], { description: "The provider's location code." }),
    languageCode: Type.Union([Type.String(), Type.Null()], { description: 'Language code used.' }),
    total: Type.Integer({ description: 'Ideas available in all pages.' }),
    offset: Type.Integer({ description: 'Offset of this page.' }),
    items: Type.Array(
      Type.Object({
        keyword: Type.String({ description: 'The keyword idea.' }),
        searchVolume: NumOrNull('Average monthly searches.'),
        competition: NumOrNull('Advertiser competition, 0 to 1.'),
        competitionLevel: Type.Union([Type.String(), Type.Null()], { description: 'LOW, MEDIUM or HIGH.' }),
        cpc: NumOrNull('Average cost per click, USD.'),
        lowTopOfPageBid: NumOrNull('Low top-of-page bid, USD.'),
        highTopOfPageBid: NumOrNull('High top-of-page bid, USD.'),
        monthlySearches: Type.Array(Type.Object({ year: Type.Integer({ description: 'Year.' }), month: Type.Integer({ description: 'Month (1-12).' }), searchVolume: NumOrNull('Searches that month.') }), { description: 'Searches per month, latest first.' }),
        keywordDifficulty: Type.Optional(NumOrNull('Ranking difficulty, 0 to 100.')),
        searchIntent: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Main search intent (informational, navigational, commercial, transactional).' })),
      }, { description: 'A keyword idea.' }),
      { description: 'Ideas of this page, most relevant first.' },
    ),
  }),
  cost: keywordIdeasCost,
  messages: { keywords: "'keywords' must be a list of 1 to 200 non-empty keywords." },
  examples: [{ title: 'Ideas around two seeds in the US', input: { keywords: ['coffee machine', 'espresso'], location: 'United States', language: 'en', limit: 50 } }],
});

/** The cost rule of an answer: per started 1,000 tokens reported, reserved for the longest answer. */
export const answerCost = perUnit({
  unit: 'tokens',
  credits: ANSWER_CREDITS_PER_1K_TOKENS,
  per: 1000,
  max: (i: { maxTokens?: number }) => (i.maxTokens ?? ANSWER_DEFAULT_MAX_TOKENS) + ANSWER_PROMPT_TOKEN_ALLOWANCE,
  note: `${ANSWER_CREDITS_PER_1K_TOKENS} credits per started 1,000 tokens the engine reports (question and answer)`,
});

/** One cited source of an answer. */
export const Citation = Type.Object({ url: Type.String({ description: 'Source URL.' }), title: Type.String({ description: 'Source title (the host name when the engine gives none).' }) }, { description: 'A cited source.' });

export const answerQuestion = defineCapability({
  id: 'answer_question',
  title: 'Answer a question from the web',
  summary: 'A hosted answer engine searches the web and answers a question in prose, citing its sources.',
  tags: ['answer', 'question', 'ai', 'llm', 'citations', 'research', 'web'],
  input: Type.Object({
    question: Type.String({ minLength: 1, maxLength: 8000, pattern: '\\S', description: 'The question.' }),
    maxTokens: Type.Optional(Type.Integer({ minimum: 16, maximum: ANSWER_MAX_TOKENS, description: `Longest answer, in tokens (default ${ANSWER_DEFAULT_MAX_TOKENS}).` })),
    // Written out literal by literal so its TypeScript type is the same union the validator enforces.
    recency: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day'), Type.Literal('week'), Type.Literal('month'), Type.Literal('year')], { description: 'Only use sources published within this period.' })),
    domains: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253, description: 'A domain, e.g. example.com (prefix with - to exclude it).' }), { maxItems: 20, description: 'Limit (or, with -, exclude) the domains searched.' })),
  }),
  output: Type.Object({
    answer: Type.String({ description: 'The answer, in markdown.' }),
    citations: Type.Array(Citation, { description: 'Sources the answer cites, in citation order.' }),
    model: Type.String({ description: 'Model that answered.' }),
    usage: Type.Object({
      promptTokens: Type.Integer({ description: 'Tokens of the question and context.' }),
      completionTokens: Type.Integer({ description: 'Tokens of the answer.' }),
      totalTokens: Type.Integer({ description: 'Tokens charged for.' }),
    }, { description: 'Token usage the engine reported (the charge is per started 1,000 total tokens).' }),
  }),
  cost: answerCost,
  messages: { question: "'question' parameter is required and must be a non-empty string." },
  examples: [{ title: 'A factual question with sources', input: { question: 'What is the tallest building in Europe?', maxTokens: 300 } }],
});
