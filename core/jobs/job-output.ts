/**
 * A finished stepwise job's items in the shape of its capability's synchronous output (issue 25:
 * an MCP tool call that ran as a job answers exactly as the tool does). Items are taken in the
 * order the job listed them (a batch's URLs as given, a crawl's pages by link distance), not the
 * order they finished in.
 */
import type { Static } from '@sinclair/typebox';
import { crawlOutput, type CrawlInputType, type CrawlPage } from '../capabilities/web-crawl.js';
import { BATCH_CREDITS_PER_PAGE, type BatchItemType } from '../capabilities/web-batch.js';

/** A job item's stored result and whether it failed. */
export interface JobItemResult {
  result: unknown;
  failed: boolean;
}

/** The name of an output schema's one top-level list (crawl and batch: `results`), where items go. */
export function listField(output: unknown): string {
  const props = (output as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {};
  const lists = Object.entries(props).filter(([, s]) => s?.type === 'array').map(([n]) => n);
  return lists.length === 1 ? lists[0]! : 'results';
}

/**
 * Builds capability `capabilityId`'s synchronous output from a job's items: `crawl_site` and
 * `batch_scrape` with their summary fields; any other stepwise capability as its one list of items.
 */
export function jobOutput(capabilityId: string, output: unknown, input: unknown, items: JobItemResult[]): Record<string, unknown> {
  if (capabilityId === 'crawl_site') {
    // A crawl leaves failed pages out (only a failed start page is an item, and the synchronous call fails then).
    return crawlOutput(input as CrawlInputType, items.filter((i) => !i.failed).map((i) => i.result as Static<typeof CrawlPage>));
  }
  if (capabilityId === 'batch_scrape') {
    const results = items.map((i) => i.result as BatchItemType);
    const completed = results.filter((r) => r.status === 'completed').length;
    return { results, completed, failed: results.length - completed, creditUsage: completed * BATCH_CREDITS_PER_PAGE };
  }
  return { [listField(output)]: items.map((i) => i.result) };
}
