/**
 * creator_a (ScrapeCreators-compatible social-data API, contracts §3): short-video data (spec
 * §4.2, §2.9), professional-network pages (spec §4.3) and, after the native provider, the
 * video-site operations (spec §4.1, §4.10). Key in `x-api-key`; without `CREATOR_A_API_KEY` every
 * operation answers `Service not configured. Please contact support.`
 */
import { definePlugin, implement } from '../../core/sdk.js';
import { bizsiteCompany, bizsiteProfile, clipsiteProfileVideos, clipsiteTranscript, clipsiteUserFollowers, clipsiteUserFollowing, clipsiteVideo, clipsiteVideoComments, getVideositeTranscript, videositeChannel, videositeChannelVideos, videositeVideo, videositeVideoComments } from '../../core/catalogue.js';
import { clipsite } from './clipsite.js';
import { bizsite } from './bizsite.js';
import { videosite } from './videosite.js';

const config = {
  baseUrl: { type: 'url', description: 'creator_a API base URL.', default: 'https://api.scrapecreators.com' },
  apiKey: { type: 'secret', description: 'creator_a API key (sent as x-api-key).', required: true },
  timeoutMs: { type: 'integer', description: 'Time allowed for one upstream call, ms (at most 120000).', min: 1000, max: 120_000, default: 60_000 },
} as const;

export default definePlugin({
  id: 'creator_a',
  apiVersion: 1,
  title: 'creator_a (ScrapeCreators-compatible social-data API)',
  summary: 'Hosted social-data provider: short-video comments, follow lists, transcripts, profiles and videos; professional-network companies and profiles; video-site fallback.',
  tags: ['clipsite', 'bizsite', 'videosite', 'social', 'provider'],
  config,
  endpoints: [...Object.values(clipsite), bizsite.company, bizsite.profile, ...Object.values(videosite)],
  // The endpoints take the capabilities' own input and answer their output: no mappings.
  implements: [
    implement(clipsiteVideoComments, clipsite.comments),
    implement(clipsiteUserFollowing, clipsite.following),
    implement(clipsiteUserFollowers, clipsite.followers),
    implement(clipsiteTranscript, clipsite.transcript),
    implement(clipsiteProfileVideos, clipsite.profileVideos),
    implement(clipsiteVideo, clipsite.video),
    implement(bizsiteCompany, bizsite.company),
    implement(bizsiteProfile, bizsite.profile),
    // After the native provider (providerOrder): a blocked or failing native call lands here.
    implement(videositeChannel, videosite.channel),
    implement(videositeChannelVideos, videosite.channelVideos),
    implement(videositeVideo, videosite.video),
    implement(videositeVideoComments, videosite.comments),
    implement(getVideositeTranscript, videosite.transcript),
  ],
});
