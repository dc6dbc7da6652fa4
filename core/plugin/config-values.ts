/**
 * Parses a plugin's settings from the environment (issue 11, typed config): each declared setting
 * is read from its variable (or its default), parsed by its `type` and checked, so a bad value
 * stops boot with a message naming the variable instead of failing on the first call.
 */
import type { ConfigField } from './types.js';
import { envName } from './ids.js';

/** Environment variable of a plugin config field. */
export function configEnv(pluginId: string, field: string, def: ConfigField): string {
  return def.env ?? envName(pluginId, field);
}

/** A setting's value after parsing, or the reason it is invalid. */
type Parsed = { value: string | number | boolean } | { problem: string };

function parse(raw: string, field: ConfigField): Parsed {
  switch (field.type ?? 'string') {
    case 'integer':
    case 'number': {
      const n = Number(raw);
      if (raw === '' || !Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return { problem: `must be ${field.type === 'integer' ? 'an integer' : 'a number'} (got '${raw.slice(0, 40)}')` };
      if (field.min !== undefined && n < field.min) return { problem: `must be at least ${field.min} (got ${n})` };
      if (field.max !== undefined && n > field.max) return { problem: `must be at most ${field.max} (got ${n})` };
      return { value: n };
    }
    case 'boolean': {
      const v = raw.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return { value: true };
      if (['0', 'false', 'no', 'off'].includes(v)) return { value: false };
      return { problem: `must be true or false (got '${raw.slice(0, 40)}')` };
    }
    case 'url': {
      try {
        const u = new URL(raw);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') return { problem: `must be an http(s) URL (got ${u.protocol})` };
      } catch {
        return { problem: `must be an absolute URL (got '${raw.slice(0, 80)}')` };
      }
      return { value: raw };
    }
    default:
      return { value: raw };
  }
}

/** Resolved settings of one plugin: values, missing required variables, and invalid ones. */
export interface ResolvedSettings {
  config: Record<string, string | number | boolean | undefined>;
  missing: string[];
  problems: string[];
}

/** Reads, parses and checks every setting a plugin declares. */
export function resolveSettings(pluginId: string, fields: Record<string, ConfigField> | undefined, env: Record<string, string | undefined>): ResolvedSettings {
  const out: ResolvedSettings = { config: {}, missing: [], problems: [] };
  for (const [name, field] of Object.entries(fields ?? {})) {
    const variable = configEnv(pluginId, name, field);
    const set = env[variable]?.trim();
    const raw = set || (field.default === undefined ? undefined : String(field.default));
    if (raw === undefined) {
      out.config[name] = undefined;
      if (field.required) out.missing.push(variable);
      continue;
    }
    const parsed = parse(raw, field);
    if ('problem' in parsed) {
      out.problems.push(`plugin '${pluginId}': ${variable} ${parsed.problem}${set ? '' : ' (its declared default)'}; fix the variable.`);
      out.config[name] = undefined;
    } else out.config[name] = parsed.value;
  }
  return out;
}

/** True for settings that must never be logged or shown. */
export function isSecret(field: ConfigField): boolean {
  return field.secret === true || field.type === 'secret';
}
