/** The usage recorder handed to endpoint handlers: units accumulate into `units`, ignoring junk. */
import type { UsageRecorder } from './types.js';

/** A recorder writing into `units` (only finite, positive amounts count). */
export function usageRecorder(units: Record<string, number>): UsageRecorder {
  return {
    add(unit, n) {
      if (Number.isFinite(n) && n > 0) units[unit] = (units[unit] ?? 0) + n;
    },
    get units() {
      return { ...units };
    },
  };
}
