/**
 * The shapes of a stepwise job implementation, free of the plugin contract's other types so
 * `types.ts` can name them without an import circle (issue 29); job-steps.ts is their public face.
 */

/** One unit of a stepwise job, as a provider describes it. Stored as JSON. */
export interface JobItemSpec {
  /**
   * Identifies the item within its job (a normalised URL, say). The engine keeps one item per
   * key: a key the job already holds is dropped, so no page is fetched or charged twice.
   */
  key: string;
  /** What the step needs to run the item besides the job's input (e.g. `{ depth: 2 }`). */
  data?: Record<string, unknown>;
}

/** What running one item produced. */
export interface JobStepResult {
  /**
   * The item as it appears in the job's results (one crawled page, one batch entry). Omitted
   * when the item yields nothing to return (a crawl link that was a redirect to a page already
   * seen): such an item is neither counted nor charged.
   */
  result?: unknown;
  /**
   * Units the item costs under the capability's cost rule (`{ pages: 1 }`); omitted or empty
   * means free. A failed batch entry returns its `result` with an error and no units.
   */
  units?: Record<string, number>;
  /** True when the item failed (counted in `progress.failed`); its result says why. */
  failed?: boolean;
  /** New items found while running this one (a crawl's links), offered to the job's frontier. */
  more?: JobItemSpec[];
}

/** The steps a provider offers for one capability, run with a context of type `Ctx` (`JobSteps` binds it to the run context). */
export interface StepsOf<I, Ctx> {
  /**
   * The most results this job returns (a crawl's `limit`, a batch's URL count): the engine stops
   * handing out items once this many have results, and shows it as `progress.total` when
   * `knownTotal` says the count is exact.
   */
  limit(input: I): number;
  /** True when `limit` is exactly the number of items (a batch); false for a frontier (a crawl). */
  knownTotal: boolean;
  /**
   * The first items (a crawl's start URL and sitemap entries, a batch's URLs). Runs once per job
   * before any item; if its instance dies meanwhile it runs again, so it must give the same keys.
   * May throw a catalogue error, which fails the job as the synchronous call would have.
   */
  seed(input: I, ctx: Ctx): Promise<JobItemSpec[]>;
  /**
   * Runs one item. A catalogue error it throws for this item alone is recorded as a failed item
   * (free); an abort of `ctx.signal` means the job was cancelled or its instance is stopping.
   */
  run(input: I, item: JobItemSpec, ctx: Ctx): Promise<JobStepResult>;
}

/** A finished job item as a capability's `jobOutput` receives it: its stored result and whether it failed. */
export interface JobItemOutcome {
  result: unknown;
  failed: boolean;
  /** Credits the item was charged (its price and any inner work it paid for, e.g. OCR pages). */
  credits: number;
}
