/** A helper for declaring direct-lane-only capabilities (spec §9.1) with a flat cost. */
import { Type, defineCapability, flat } from '../sdk.js';
import { AnyObject } from './common.js';

/** A `visibility: 'legacy'` capability: reached through the v1 table, hidden from v2 discovery. */
export const legacy = (id: string, title: string, summary: string, tags: string[], input: Parameters<typeof Type.Object>[0], credits: number, messages?: Record<string, string>, validate?: (i: any) => string | undefined) =>
  defineCapability({ id, title, summary, tags, visibility: 'legacy', input: Type.Object(input), output: AnyObject, cost: flat(credits), messages, validate });

/** A required, non-empty string field. */
export const UrlReq = (d: string) => Type.String({ description: d, minLength: 1 });
/** spec §7.1: the 400 text of a missing `url`. */
export const urlMessage = { url: "'url' parameter is required and must be a non-empty string." };
