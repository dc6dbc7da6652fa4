/**
 * `GET /settings-reference` (issue 28): the settings of the plugins this deployment loads,
 * generated from their declarations, so an operator who added a plugin (one folder + one line in
 * `plugins.config.ts`) has its reference without regenerating the README, which documents only
 * the plugins the repository ships. Markdown by default, JSON with `?format=json`. Names,
 * defaults and descriptions only: never a value, and no secret's default.
 */
import type { FastifyInstance } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../core/tokens.js';
import { SETTINGS_DOC } from '../core/config.js';
import { settingRows, settingsTable } from '../core/registry/readme-tables.js';

/** Registers the settings reference route. */
export async function settingsReferenceRoutes(app: FastifyInstance, opts: { container: DependencyContainer }): Promise<void> {
  const registry = opts.container.resolve(TOKENS.Registry);
  // The registry is frozen at boot: the reference is built once.
  const plugins = [...registry.plugins.values()].map((p) => p.def);
  const json = {
    service: Object.entries(SETTINGS_DOC).map(([variable, d]) => ({ variable, default: d.default, description: d.description })),
    plugins: settingRows(plugins),
  };
  const markdown = [
    '# Settings of this deployment',
    '',
    '## Service',
    '',
    '| Variable | Default | Meaning |',
    '|---|---|---|',
    ...json.service.map((r) => `| \`${r.variable}\` | ${r.default} | ${r.description.replace(/\|/g, '\\|')} |`),
    '',
    '## Plugins',
    '',
    settingsTable(plugins),
    '',
  ].join('\n');
  app.get<{ Querystring: { format?: string } }>('/settings-reference', async (req, reply) => {
    if (req.query.format === 'json') return json;
    return reply.type('text/markdown; charset=utf-8').send(markdown);
  });
}
