/**
 * Professional-network jobs kept on the direct lane (spec §4.3, §9.1): a company page and a
 * person's public profile. The output schemas model spec §4.3 field by field (the formal fields
 * and the "may also carry" ones); every section is optional because only public information is
 * returned and sections go missing with the page's visibility. 10 credits per request (spec §8.1).
 */
import { Type, defineCapability, flat } from '../sdk.js';

const URL_REQUIRED = "'url' parameter is required and must be a non-empty string.";

/** The path segment a page URL must contain, or the 400 text saying so. */
function checkPageUrl(url: string, segment: '/company/' | '/in/', what: string): string | undefined {
  let u: URL;
  try {
    u = new URL(/^https?:\/\//i.test(url.trim()) ? url.trim() : `https://${url.trim()}`);
  } catch {
    return `Invalid bizsite ${what} URL: '${url.slice(0, 200)}' is not a URL.`;
  }
  if (!u.pathname.includes(segment) || u.pathname.endsWith(segment)) {
    return `Invalid bizsite ${what} URL: it must contain the path segment ${segment} followed by the page name (e.g. https://www.linkedin.com${segment}name/).`;
  }
  return undefined;
}

const Str = (description: string) => Type.Optional(Type.String({ description }));
const Int = (description: string) => Type.Optional(Type.Integer({ description }));
const Obj = (props: Parameters<typeof Type.Object>[0], description: string) => Type.Object(props, { additionalProperties: true, description });
const List = (item: ReturnType<typeof Obj>, description: string) => Type.Optional(Type.Array(item, { description }));

const Place = { city: Str('City.'), state: Str('State or region.'), country: Str('Country.') };
const RecentPost = Obj(
  {
    title: Str('Post text or title.'),
    activityType: Str('What the activity is (e.g. "Posted by …", "Liked by …").'),
    link: Str('Post URL.'),
    image: Str('Image of the post.'),
    datePublished: Str('When it was published.'),
    engagement: Type.Optional(Obj({ likes: Int('Likes.'), comments: Int('Comments.'), shares: Int('Shares.') }, 'Engagement counts.')),
  },
  'A recent post or activity.',
);

export const bizsiteCompany = defineCapability({
  id: 'bizsite_company',
  title: 'Company page',
  summary: 'Public data of a professional-network company page: profile, size, locations, specialties, employees, posts, job openings; 10 credits.',
  tags: ['bizsite', 'company', 'professional network'],
  visibility: 'legacy',
  input: Type.Object({ url: Type.String({ description: 'Company page URL; must contain /company/.', minLength: 1 }) }),
  output: Type.Object(
    {
      success: Type.Boolean({ description: 'Always true on success.' }),
      name: Type.String({ description: 'Company name.' }),
      description: Str('About the company.'),
      website: Str('Company website.'),
      logo: Str('Logo URL.'),
      image: Str('Cover image URL.'),
      slogan: Str('Tagline.'),
      industry: Str('Industry.'),
      size: Str('Size band as shown, e.g. "1,001-5,000 employees".'),
      companySize: Str('Size band (same as size).'),
      headquarters: Str('Headquarters, as shown.'),
      type: Str('Company type, e.g. "Privately Held".'),
      companyType: Str('Company type (same as type).'),
      location: Type.Optional(Obj(Place, 'Headquarters location.')),
      employeeCount: Int('Employees on the network.'),
      founded: Int('Year founded.'),
      followers: Int('Followers of the page.'),
      specialties: Type.Optional(Type.Array(Type.String({ description: 'A specialty.' }), { description: 'Specialties.' })),
      posts: List(Obj({ url: Str('Post URL.'), datePublished: Str('When it was published.'), text: Str('Post text.') }, 'A post.'), 'Posts of the page.'),
      recentPosts: List(RecentPost, 'Recent posts with engagement.'),
      employees: List(Obj({ name: Str('Name.'), title: Str('Headline or job title.'), image: Str('Photo URL.'), bizsiteUrl: Str('Profile URL.') }, 'An employee.'), 'Employees shown on the page.'),
      locations: List(
        Obj({ ...Place, isHeadquarters: Type.Optional(Type.Boolean({ description: 'Whether it is the headquarters.' })), employeeCount: Str('Employees there (range).') }, 'An office.'),
        'Offices.',
      ),
      jobOpenings: List(Obj({ title: Str('Job title.'), location: Str('Where.'), type: Str('Employment type.'), postedDate: Str('When it was posted.'), url: Str('Job URL.') }, 'A job opening.'), 'Open jobs.'),
    },
    { additionalProperties: true, description: 'A company (spec §4.3); sections missing when not public.' },
  ),
  cost: flat(10),
  messages: { url: URL_REQUIRED },
  validate: (i: { url: string }) => checkPageUrl(i.url, '/company/', 'company'),
  examples: [{ title: 'A company page', input: { url: 'https://www.linkedin.com/company/example-co/' } }],
});

export const bizsiteProfile = defineCapability({
  id: 'bizsite_profile',
  title: "Person's public profile",
  summary: "A person's public professional-network profile: headline, location, followers, connections, about, experience, education, recent posts; 10 credits.",
  tags: ['bizsite', 'profile', 'person', 'professional network'],
  visibility: 'legacy',
  input: Type.Object({ url: Type.String({ description: 'Profile URL; must contain /in/.', minLength: 1 }) }),
  output: Type.Object(
    {
      success: Type.Boolean({ description: 'Always true on success.' }),
      name: Type.String({ description: 'Full name.' }),
      headline: Str('Headline.'),
      location: Str('Location, as shown.'),
      image: Str('Photo URL.'),
      url: Str('Profile URL.'),
      followers: Int('Followers.'),
      connections: Str('Connections, as shown (e.g. "500+").'),
      about: Str('About section.'),
      experience: List(
        Obj({ title: Str('Role.'), company: Str('Company.'), companyUrl: Str('Company page URL.'), location: Str('Where.'), startDate: Str('Start.'), endDate: Str('End (missing while current).'), description: Str('What the role was.') }, 'A position.'),
        'Positions, most recent first.',
      ),
      education: List(Obj({ school: Str('School.'), schoolUrl: Str('School page URL.'), degree: Str('Degree and field.'), startDate: Str('Start.'), endDate: Str('End.') }, 'A school.'), 'Education.'),
      recentPosts: List(RecentPost, 'Recent posts and activity.'),
    },
    { additionalProperties: true, description: "A person's profile; sections missing when not public." },
  ),
  cost: flat(10),
  messages: { url: URL_REQUIRED },
  validate: (i: { url: string }) => checkPageUrl(i.url, '/in/', 'profile'),
  examples: [{ title: 'A public profile', input: { url: 'https://www.linkedin.com/in/jane-example/' } }],
});

export default [bizsiteCompany, bizsiteProfile];
