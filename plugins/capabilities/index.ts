/**
 * The capability catalogue: every capability id of spec §4.10 plus the direct-lane jobs
 * (spec §9.1), declared as extension points. Providers implement them in their own plugins.
 */
import { definePlugin } from '../../core/sdk.js';
import web from './web.js';
import documents from './documents.js';
import code from './code.js';
import search from './search.js';
import media from './media.js';
import social from './social.js';
import image from './image.js';

export default definePlugin({
  id: 'capabilities',
  apiVersion: 1,
  title: 'Capability catalogue',
  summary: 'Declares the service capabilities that provider plugins implement.',
  capabilities: [...search, ...web, ...media, ...documents, ...code, ...social, ...image],
});
