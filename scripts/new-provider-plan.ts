/**
 * What the scaffold derives from a capability before writing a provider (issue 29): the names the
 * files use, the fields the endpoint takes and answers (the capability's required ones), the
 * values its fake and test use, and the price the test expects, read from the catalogue's rule.
 */
import type { CapabilityDef } from '../core/sdk.js';
import * as catalogueExports from '../core/catalogue.js';
import { configEnv } from '../core/plugin/config-values.js';
import { capabilityInput, optionalFields, requiredFields, sampleOf } from './new-provider-samples.js';

/** Units the fake reports for a capability priced per unit. */
export const FAKE_UNITS = 3;

/** Everything the file writers need. */
export interface ProviderPlan {
  id: string;
  capability: CapabilityDef<any, any>;
  /** The catalogue's export name of the capability, e.g. `answerQuestion`. */
  exportName: string;
  /** `MyAnswers`, for type names. */
  pascal: string;
  /** The endpoint's operation (the capability id) and the placeholder upstream path. */
  operation: string;
  upstreamPath: string;
  env: { baseUrl: string; apiKey: string; timeoutMs: string };
  /** The capability's required input and output fields. */
  inputFields: string[];
  outputFields: string[];
  /** Its optional input fields, for the README's "add what the provider supports". */
  optionalInputs: { name: string; description: string }[];
  /** An input the capability accepts, and the part of it the endpoint takes. */
  sampleInput: Record<string, unknown>;
  endpointInput: Record<string, unknown>;
  /** What the fake answers: a value of every required output field. */
  recordedAnswer: Record<string, unknown>;
  /** The unit a per-unit price counts (the run reports it), if the price is per unit. */
  unit?: string;
  /** Credits the catalogue charges for `sampleInput` with the fake's units. */
  expectedCredits: number;
}

/** `my_answers` → `MyAnswers`. */
export const pascalCase = (id: string) => id.split('_').map((p) => p[0]!.toUpperCase() + p.slice(1)).join('');

/** The catalogue's export name of a capability definition. */
function exportNameOf(cap: CapabilityDef<any, any>): string {
  const found = Object.entries(catalogueExports).find(([, v]) => v === cap);
  if (!found) throw new Error(`capability '${cap.id}' has no named export in core/catalogue.ts`);
  return found[0];
}

/** The charge the executor settles: the rule's figure, never above the reservation (core/execution). */
function chargeOf(cap: CapabilityDef<any, any>, input: unknown, units: Record<string, number>): number {
  const most = cap.cost.reserve(input);
  const computed = cap.cost.settle(input, units);
  return Number.isSafeInteger(computed) && computed >= 0 ? Math.min(computed, most) : most;
}

/** Derives the plan for provider `id` serving `cap`. Throws when no working input can be built. */
export function planProvider(id: string, cap: CapabilityDef<any, any>): ProviderPlan {
  const describe = cap.cost.describe as { kind: string; unit?: string };
  const unit = describe.kind === 'per_unit' ? describe.unit : undefined;
  const inputFields = requiredFields(cap.input);
  const sampleInput = capabilityInput(cap);
  const recordedAnswer = (cap.output ? sampleOf(cap.output) : {}) as Record<string, unknown>;
  return {
    id,
    capability: cap,
    exportName: exportNameOf(cap),
    pascal: pascalCase(id),
    operation: cap.id,
    upstreamPath: `/v1/${cap.id.replace(/_/g, '-')}`,
    env: {
      baseUrl: configEnv(id, 'baseUrl', { description: '' }),
      apiKey: configEnv(id, 'apiKey', { description: '' }),
      timeoutMs: configEnv(id, 'timeoutMs', { description: '' }),
    },
    inputFields,
    outputFields: requiredFields(cap.output),
    optionalInputs: optionalFields(cap.input),
    sampleInput,
    endpointInput: Object.fromEntries(inputFields.map((f) => [f, sampleInput[f]])),
    recordedAnswer,
    unit,
    expectedCredits: chargeOf(cap, sampleInput, unit ? { [unit]: FAKE_UNITS } : {}),
  };
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A string as a single-quoted TypeScript literal (house style). */
export const str = (text: string) => `'${JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;

/** A property access: `.name`, or `['odd-name']`. */
export const prop = (name: string) => (IDENTIFIER.test(name) ? `.${name}` : `[${str(name)}]`);
/** An object literal key: `name`, or `'odd-name'`. */
export const key = (name: string) => (IDENTIFIER.test(name) ? name : str(name));

/** A `/** … *\/` comment of `text`, wrapped at 100 columns (blank lines in `text` become paragraph breaks). */
export function docComment(text: string): string {
  const lines: string[] = [];
  for (const paragraph of text.trim().split(/\n\s*\n/)) {
    if (lines.length) lines.push(' *');
    let line = ' *';
    for (const word of paragraph.split(/\s+/)) {
      if (line.length + 1 + word.length > 100 && line !== ' *') {
        lines.push(line);
        line = ' *';
      }
      line += ` ${word}`;
    }
    lines.push(line);
  }
  return `/**\n${lines.join('\n')}\n */`;
}

/** A value as TypeScript source: one line when short, else indented by `indent`. */
export function literal(value: unknown, indent = ''): string {
  const flat = JSON.stringify(value);
  const inline = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(inline).join(', ')}]`;
    if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      return entries.length ? `{ ${entries.map(([k, x]) => `${key(k)}: ${inline(x)}`).join(', ')} }` : '{}';
    }
    return typeof v === 'string' ? str(v) : JSON.stringify(v);
  };
  if (flat.length <= 80 || !value || typeof value !== 'object') return inline(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => `${inner}${literal(v, inner)},`).join('\n')}\n${indent}]`;
  return `{\n${Object.entries(value).map(([k, v]) => `${inner}${key(k)}: ${literal(v, inner)},`).join('\n')}\n${indent}}`;
}
