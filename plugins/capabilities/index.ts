/**
 * The capability catalogue plugin: registers every capability declared in `core/capabilities/`
 * (spec §4.10 ids and the direct-lane jobs of spec §9.1) as extension points that provider
 * plugins implement.
 */
import { definePlugin } from '../../core/sdk.js';
import { catalogue } from '../../core/catalogue.js';

export default definePlugin({
  id: 'capabilities',
  apiVersion: 1,
  title: 'Capability catalogue',
  summary: 'Declares the service capabilities that provider plugins implement.',
  capabilities: catalogue,
});
