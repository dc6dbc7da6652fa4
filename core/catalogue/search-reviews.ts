/**
 * The reviews response of spec §4.4, field by field (the executor checks every provider's answer
 * against it). Text fields the engine leaves empty (no owner answer, no original text) are null,
 * as providers report them; extra provider fields are kept.
 */
import { Type } from '../sdk.js';

const open = { additionalProperties: true } as const;
const Text = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }));
const Num = (description: string) => Type.Optional(Type.Union([Type.Number(), Type.Null()], { description }));

/** spec §4.4 `rating`: `rating_type` string; `value`, `votes_count`, `rating_max` numbers. */
export const ReviewRating = Type.Object(
  { rating_type: Text('Rating scale, e.g. Max5.'), value: Num('Rating value.'), votes_count: Num('Number of votes.'), rating_max: Num('Highest value of the scale.') },
  { ...open, description: 'A rating.' },
);

/** One review (spec §4.4 items). */
export const ReviewItem = Type.Object(
  {
    type: Text('Item type.'),
    position: Text('Position of the item on the page.'),
    rank_group: Num('Rank among items of the same type.'),
    rank_absolute: Num('Rank among all items.'),
    review_text: Text('Review text (translated when the engine translates it).'),
    original_review_text: Text('Review text as written, when it was translated.'),
    time_ago: Text('Age as shown, e.g. "2 months ago".'),
    timestamp: Text('When it was written, "yyyy-mm-dd hh:mm:ss +00:00".'),
    rating: Type.Optional(Type.Union([ReviewRating, Type.Null()], { description: 'The reviewer\'s rating.' })),
    reviews_count: Num('Reviews the reviewer has written.'),
    photos_count: Num('Photos the reviewer has posted.'),
    local_guide: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether the reviewer is a local guide.' })),
    profile_name: Text('Reviewer name.'),
    profile_url: Text('Reviewer profile URL.'),
    review_url: Text('Review URL.'),
    profile_image_url: Text('Reviewer avatar URL.'),
    owner_answer: Text("The owner's answer."),
    original_owner_answer: Text("The owner's answer as written, when translated."),
    owner_time_ago: Text('Age of the owner\'s answer as shown.'),
    owner_timestamp: Text("When the owner answered."),
    review_id: Text('Review id.'),
    images: Type.Optional(
      Type.Union([
        Type.Array(Type.Object({ type: Text('Image type.'), alt: Text('Alt text.'), url: Text('Page URL of the image.'), image_url: Text('Image file URL.') }, { ...open, description: 'An image.' })),
        Type.Null(),
      ], { description: 'Images attached to the review.' }),
    ),
  },
  { ...open, description: 'A review.' },
);

/** The reviews response (spec §4.4). */
export const ReviewsOutput = Type.Object(
  {
    keyword: Text('Keyword searched, when a keyword was used.'),
    type: Text('Result type (reviews).'),
    se_domain: Text('Search engine domain used.'),
    location_code: Num('Location code the search used.'),
    language_code: Text('Language code used.'),
    check_url: Text('URL to see the result on the engine.'),
    datetime: Text('When the data was collected.'),
    title: Text('Business name.'),
    sub_title: Text('Business address.'),
    rating: Type.Optional(Type.Union([ReviewRating, Type.Null()], { description: 'Overall rating of the business.' })),
    feature_id: Text('Feature id of the business.'),
    place_id: Text('Place ID of the business.'),
    cid: Text('Maps client ID of the business.'),
    reviews_count: Num('Reviews the business has in total.'),
    items_count: Type.Number({ description: 'Reviews returned (what is charged).' }),
    items: Type.Array(ReviewItem, { description: 'The reviews.' }),
  },
  { ...open, description: 'Reviews of one business.' },
);
