/**
 * A cost rule's description (`cost.describe`, the same data `/api/v2/details` shows) in words:
 * one wording for the OpenAPI documents and the MCP tool descriptions, so an agent and a reader
 * of the API reference see the same price before they call (issue 17 §2; spec §8.1).
 */
import type { CostDescription } from '../core/credits/cost.js';

function credits(n: number): string {
  return `${n} credit${n === 1 ? '' : 's'}`;
}

/** One sentence saying what a call costs. */
export function describeCost(cost: CostDescription): string {
  switch (cost.kind) {
    case 'flat':
      return cost.credits === 0 ? 'free.' : `${credits(cost.credits)} per call.`;
    case 'per_unit':
      // A note is the plugin's own wording (e.g. per-model image prices); it says it best.
      if (cost.note) return `${cost.note.replace(/\.$/, '')}.`;
      return cost.per === 1 ? `${credits(cost.credits)} per ${cost.unit.replace(/s$/, '')} returned.` : `${credits(cost.credits)} per started ${cost.per} ${cost.unit} returned.`;
    case 'per_output_mb':
      return `${credits(cost.credits)} per started ${cost.perMb} MB of output (any output costs at least one block; up to ${cost.maxMb} MB).`;
    case 'custom':
      return `${cost.note.replace(/\.$/, '')}.`;
  }
}
