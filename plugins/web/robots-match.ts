/**
 * robots.txt matching without the rest of the plugin, so the compute workers can check many URLs
 * against a site's file (a map's thousands of sitemap URLs against a file of up to 512 KiB would
 * otherwise hold the thread that serves requests).
 */
import robotsParserModule from 'robots-parser';

/** The robots.txt product token this crawler obeys (and sends in its User-Agent). */
export const ROBOTS_AGENT = 'ContentIntelligenceBot';

/** What robots-parser returns for one file. */
export type RobotsRules = {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
};
type RobotsParser = (url: string, text: string) => RobotsRules;

// robots-parser is CommonJS with a default-export typing; under NodeNext the function is the module.
/** Parses one robots.txt file (`robotsUrl` is where it was read). */
export const robotsParser = ((robotsParserModule as unknown as { default?: RobotsParser }).default ?? robotsParserModule) as unknown as RobotsParser;

/** Of `urls` (all on the file's origin), those the file allows this crawler to fetch. */
export function allowedByRobots(robotsUrl: string, text: string, urls: string[]): string[] {
  const rules = robotsParser(robotsUrl, text);
  return urls.filter((u) => rules.isAllowed(u, ROBOTS_AGENT) !== false);
}
