/**
 * Client of the crawler_a API (Firecrawl v2; contracts §5): bearer auth, JSON bodies, the async
 * crawl job polled until it ends, `next` pages followed. Upstream failures become catalogue
 * errors here, at the HTTP-client boundary (design: "Errors").
 */
import { type HttpResponse, InputError, NotFoundError, invalidStructure, providerRequest, type RunContext, type ServiceError, UpstreamError } from '../../core/sdk.js';

/** A scraped document as the API returns it (`data` of /scrape, items of crawl status). */
export interface CrawlerADocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  screenshot?: string;
  metadata?: { title?: string; sourceURL?: string; url?: string; statusCode?: number; contentType?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** Crawl job status (GET /v2/crawl/{id}). */
export interface CrawlerAStatus {
  status: 'scraping' | 'completed' | 'failed' | 'cancelled';
  total?: number;
  completed?: number;
  creditsUsed?: number;
  expiresAt?: string;
  next?: string | null;
  data?: CrawlerADocument[];
}

const NAME = 'crawler_a';

/** A client bound to one call's context (its signal, logger, settings and HTTP engine). */
export class CrawlerAClient {
  private readonly base: string;

  constructor(private readonly ctx: RunContext<unknown>) {
    this.base = String(ctx.config.baseUrl).replace(/\/+$/, '');
  }

  /** Sends one API request (a path, or a status URL of the configured origin) and returns the parsed JSON. */
  async call<T>(method: 'GET' | 'POST' | 'DELETE', pathOrUrl: string, body?: unknown, timeoutMs = 90_000, signal: AbortSignal = this.ctx.signal): Promise<T> {
    const target = pathOrUrl.startsWith('http') ? { url: pathOrUrl } : { path: pathOrUrl };
    const ctx = signal === this.ctx.signal ? this.ctx : { ...this.ctx, signal };
    const { data } = await providerRequest<T>(ctx, { ...target, method, json: body, timeoutMs, maxBytes: 50 * 1024 * 1024, mapError });
    return data;
  }

  /** POST /v2/scrape → the document. */
  async scrape(body: Record<string, unknown>): Promise<CrawlerADocument> {
    const out = await this.call<{ success?: boolean; data?: CrawlerADocument }>('POST', '/v2/scrape', body);
    if (!out || typeof out.data !== 'object' || out.data === null) throw invalid();
    return out.data;
  }

  /**
   * Starts a crawl and polls its status until it completes, following `next` for every chunk.
   * A failed or cancelled job is an upstream failure (502), so the chain may try the next provider;
   * so is a 404 while polling (the job expired or was lost upstream: nothing the caller did).
   * When we stop waiting for any other reason (the time limit, the caller went away, a broken
   * answer) the job is cancelled upstream (contracts §5d: `DELETE /v2/crawl/{id}`), so it does not
   * keep crawling, and spending, for nobody.
   */
  async crawl(body: Record<string, unknown>, pollMs: number): Promise<CrawlerAStatus & { data: CrawlerADocument[] }> {
    const started = await this.call<{ success?: boolean; id?: string; url?: string }>('POST', '/v2/crawl', body);
    if (!started?.id) throw invalid();
    const statusUrl = `${this.base}/v2/crawl/${encodeURIComponent(started.id)}`;
    let ended = false;
    const cancelOnAbort = () => void this.cancel(statusUrl);
    if (this.ctx.signal.aborted) cancelOnAbort();
    else this.ctx.signal.addEventListener('abort', cancelOnAbort, { once: true });
    try {
      for (;;) {
        const st = await this.poll(statusUrl);
        if (!st || typeof st.status !== 'string') throw invalid();
        if (st.status === 'failed' || st.status === 'cancelled') {
          ended = true;
          throw new UpstreamError(`Failed to retrieve the crawl from ${NAME}: the job ${st.status}.`);
        }
        if (st.status === 'completed') {
          ended = true;
          const data = [...(st.data ?? [])];
          for (let next = st.next; next; ) {
            // The bearer token only ever goes to the configured origin.
            if (new URL(next, this.base).origin !== new URL(this.base).origin) throw invalid();
            const page = await this.poll(next);
            data.push(...(page.data ?? []));
            next = page.next;
          }
          return { ...st, data };
        }
        await sleep(pollMs, this.ctx.signal);
      }
    } catch (err) {
      // An abort already sent the cancel; a job that ended or is unknown upstream needs none.
      if (!ended && !this.ctx.signal.aborted && !(err instanceof JobGoneError)) void this.cancel(statusUrl);
      throw err;
    } finally {
      this.ctx.signal.removeEventListener('abort', cancelOnAbort);
    }
  }

  /** One status request; a 404 means the job is gone upstream, which is the provider's failure. */
  private async poll(url: string): Promise<CrawlerAStatus> {
    try {
      return await this.call<CrawlerAStatus>('GET', url);
    } catch (err) {
      if (err instanceof NotFoundError) throw new JobGoneError(`Failed to retrieve the crawl from ${NAME}: the job is no longer known upstream.`, { cause: err });
      throw err;
    }
  }

  /**
   * Best effort, off the caller's path: the caller's signal may already be aborted, so the
   * request has its own short time limit; a failure is only logged.
   */
  private async cancel(statusUrl: string): Promise<void> {
    try {
      await this.call('DELETE', statusUrl, undefined, CANCEL_TIMEOUT_MS, AbortSignal.timeout(CANCEL_TIMEOUT_MS));
      this.ctx.log.info({ statusUrl }, 'crawler_a: crawl job cancelled');
    } catch (err) {
      this.ctx.log.warn({ err, statusUrl }, 'crawler_a: cancelling the crawl job failed');
    }
  }
}

/** The crawl job is unknown upstream (404 while polling): a 502, so the chain moves on. */
class JobGoneError extends UpstreamError {}

const CANCEL_TIMEOUT_MS = 10_000;

function invalid(): UpstreamError {
  return invalidStructure({ provider: NAME }, 'missing job id, status or document');
}

/** contracts §5 "Errors": a 404 is an unknown job or page, a 422 the caller's input. */
function mapError(res: HttpResponse, message: string): ServiceError | undefined {
  if (res.status === 404) return new NotFoundError(`Not found at ${NAME}: ${message || 'unknown job or page'}.`);
  if (res.status === 422) return new InputError(`${NAME} rejected the request: ${message || 'invalid input'}.`);
  return undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => (clearTimeout(t), reject(signal.reason));
    const t = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
