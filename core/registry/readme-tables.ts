/**
 * The README tables that follow from the registry and the v1 table (issue 11: one folder + one
 * line): plugins, their settings, and the v1 routes. `scripts/readme-tables.ts` writes them
 * between `<!-- generated:NAME -->` markers; `test/readme.test.ts` fails when they are stale.
 */
import type { ConfigField, PluginDef } from '../plugin/types.js';
import { configEnv, isSecret } from '../plugin/config-values.js';
import { endpointId } from '../plugin/ids.js';

/** One generated block: its marker name and its markdown. */
export interface GeneratedBlock {
  name: string;
  markdown: string;
}

/** A v1 route as the table lists it. */
export interface RouteRow {
  method: string;
  path: string;
  target: string;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

function kindOf(def: PluginDef<any, any>): string {
  if (!def.endpoints?.length) return 'catalogue';
  const needsKey = Object.values((def.config ?? {}) as Record<string, ConfigField>).some((f) => f.required);
  if (def.managed || !needsKey) return 'service-managed, no key';
  return 'provider, needs its API key';
}

/** The plugins table: kind, endpoints and capabilities served, in `plugins.config.ts` order. */
export function pluginsTable(plugins: PluginDef<any, any>[]): string {
  const rows = plugins.map((def) => {
    const endpoints = (def.endpoints ?? []).map((e) => `\`${endpointId(def.id, e.operation)}\``).join(', ') || '—';
    const caps = def.capabilities?.length ? 'declares them all' : [...new Set((def.implements ?? []).map((i) => `\`${i.capability}\``))].join(', ') || '—';
    return `| [\`${def.id}\`](plugins/${def.id}/README.md) | ${kindOf(def)} | ${endpoints} | ${caps} |`;
  });
  return ['| Plugin | Kind | Endpoints | Serves capabilities |', '|---|---|---|---|', ...rows].join('\n');
}

/** One plugin setting as the references list it (a secret's default is never shown). */
export interface SettingRow {
  variable: string;
  plugin: string;
  type: string;
  /** The default as text; undefined when there is none (or it is a secret's). */
  default?: string;
  required: boolean;
  secret: boolean;
  description: string;
}

/** Every setting the given plugins declare, in plugin order. */
export function settingRows(plugins: PluginDef<any, any>[]): SettingRow[] {
  const rows: SettingRow[] = [];
  for (const def of plugins) {
    for (const [name, f] of Object.entries((def.config ?? {}) as Record<string, ConfigField>)) {
      const secret = isSecret(f);
      rows.push({
        variable: configEnv(def.id, name, f),
        plugin: def.id,
        type: f.type ?? 'string',
        ...(f.default !== undefined && !secret ? { default: String(f.default) } : {}),
        required: f.required === true,
        secret,
        description: f.description,
      });
    }
  }
  return rows;
}

/** The plugin settings table: variable, default, plugin and description. */
export function settingsTable(plugins: PluginDef<any, any>[]): string {
  const rows = settingRows(plugins).map((r) => {
    const dflt = r.default !== undefined ? `\`${r.default}\`` : r.required ? 'unset (required)' : 'unset';
    const type = r.type !== 'string' ? ` (${r.type})` : '';
    return `| \`${r.variable}\` | ${dflt} | ${r.plugin}${type}: ${cell(r.description)} |`;
  });
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The v1 routes table. */
export function routesTable(routes: RouteRow[]): string {
  return ['| Method | Path | Target |', '|---|---|---|', ...routes.map((r) => `| ${r.method} | \`${r.path}\` | \`${r.target}\` |`)].join('\n');
}

/** Replaces each block's content between its markers; throws naming a missing marker. */
export function applyBlocks(readme: string, blocks: GeneratedBlock[]): string {
  let out = readme;
  for (const { name, markdown } of blocks) {
    const start = `<!-- generated:${name} -->`;
    const end = `<!-- /generated:${name} -->`;
    const i = out.indexOf(start);
    const j = out.indexOf(end);
    if (i === -1 || j === -1 || j < i) throw new Error(`README.md lacks the markers ${start} … ${end}`);
    out = `${out.slice(0, i + start.length)}\n${markdown}\n${out.slice(j)}`;
  }
  return out;
}
