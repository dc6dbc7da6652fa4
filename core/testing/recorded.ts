/**
 * Recorded answers for fakes (issue 29): a provider's answer bodies live as JSON next to its fake
 * (`plugins/<id>/recorded/<name>.json`), copied from the provider's documentation or a real call,
 * so the fake's code keeps only what varies. A value may hold `{{name}}` placeholders, filled from
 * the variables a route passes: a string that is only `"{{name}}"` takes the variable as it is
 * (a number, a list, an object, `null`); inside a longer string it is written as text. A placeholder
 * with no variable throws, so a misspelt name fails the test instead of sending `{{name}}`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Variables a recorded answer's placeholders are filled from. */
export type RecordedVars = Record<string, unknown>;

/** Reads the answers recorded for a fake: `recordings(import.meta.url)('completion', { model })`. */
export function recordings(fakeModuleUrl: string, folder = 'recorded'): (name: string, vars?: RecordedVars) => any {
  const dir = path.join(path.dirname(fileURLToPath(fakeModuleUrl)), folder);
  const loaded = new Map<string, unknown>();
  return (name, vars = {}) => {
    if (!loaded.has(name)) loaded.set(name, JSON.parse(readFileSync(path.join(dir, `${name}.json`), 'utf8')));
    return fill(loaded.get(name), vars, name);
  };
}

const WHOLE = /^\{\{(\w+)\}\}$/;
const INSIDE = /\{\{(\w+)\}\}/g;

/** A copy of `value` with its placeholders filled (the recording itself stays untouched). */
export function fill(value: unknown, vars: RecordedVars, where = 'recorded answer'): any {
  const lookup = (key: string) => {
    if (!(key in vars)) throw new Error(`${where}: no value for {{${key}}}`);
    return vars[key];
  };
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    return whole ? lookup(whole[1]!) : value.replace(INSIDE, (_, key: string) => String(lookup(key)));
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, vars, where));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars, where)]));
  return value;
}
