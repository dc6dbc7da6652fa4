/**
 * The shape of one usage row, in a file of its own so the usage log and its crash journal both
 * use it without importing each other (issue 29: no import circles).
 */

/** One call as recorded. */
export interface UsageRow {
  requestId: string;
  keyId: string;
  lane: 'v1' | 'v2' | 'mcp';
  objectType: 'capability' | 'endpoint' | 'operation';
  objectId: string;
  provider: string | null;
  status: number;
  code: string | null;
  credits: number;
  latencyMs: number;
  requestSource: string;
  createdAt: Date;
  /** What the call produced as its handler reported it (pages, reviews, model tokens…), if anything. */
  units?: Record<string, number> | null;
}
