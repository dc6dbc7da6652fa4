/**
 * Schemas of creator_a's own endpoints that serve no shared capability: the short-video profile
 * (spec §2.9 "Profile response", the target of `POST /api/v1/get-clipsite-profile`, spec §9.4).
 */
import { Type } from '../../core/sdk.js';

const Str = (description: string) => Type.String({ description });
const Int = (description: string) => Type.Integer({ description });

/** Input of `creator_a.clipsite_profile`. */
export const ProfileInput = Type.Object({
  handle: Type.String({ description: 'Username without @ (a leading @ is ignored).', minLength: 1 }),
});

/** Spec §2.9 profile response: `user`, `stats`, `itemList`, extra properties allowed. */
export const ProfileOutput = Type.Object(
  {
    user: Type.Object(
      {
        id: Str('Account id.'),
        uniqueId: Str('Username (handle without @).'),
        nickname: Str('Display name.'),
        avatarThumb: Str('Avatar thumbnail URL (empty when none).'),
        avatarMedium: Str('Avatar URL, medium size (empty when none).'),
        avatarLarger: Str('Avatar URL, large size (empty when none).'),
        signature: Str('Bio.'),
        verified: Type.Boolean({ description: 'Whether the account is verified.' }),
        secUid: Str('Stable secure id of the account.'),
        privateAccount: Type.Boolean({ description: 'Whether the account is private.' }),
        createTime: Type.Union([Type.Integer(), Type.Null()], { description: 'When the account was created (epoch seconds).' }),
        bioLink: Type.Union([Type.String(), Type.Null()], { description: 'The link in the bio, if any.' }),
      },
      { additionalProperties: true, description: 'The account.' },
    ),
    stats: Type.Object(
      {
        followerCount: Int('Followers.'),
        followingCount: Int('Accounts it follows.'),
        heartCount: Int('Likes received.'),
        videoCount: Int('Videos posted.'),
        diggCount: Int('Videos it liked.'),
        friendCount: Int('Mutual follows.'),
      },
      { additionalProperties: true, description: 'Counters of the account.' },
    ),
    itemList: Type.Array(Type.Object({}, { additionalProperties: true, description: 'A recent video, as the site lists it.' }), { description: 'Recent videos shown on the profile (often empty).' }),
  },
  { additionalProperties: true, description: 'A short-video profile (spec §2.9).' },
);
